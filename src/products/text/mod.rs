//! What products store as documents, turned into plain text for the support check.
