//! Office Open XML packages (.docx, .pptx, .xlsx) built in the test, as Word, PowerPoint and Excel write them.
