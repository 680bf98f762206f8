//! The key installation tokens are encrypted with at rest (`SOURCEBOT_TOKEN_KEY`: 32
//! random bytes as 64 hex digits, as `openssl rand -hex 32` prints). Sealing is
//! AES-256-GCM (ring) with a fresh random 96-bit nonce each time; a sealed token reads
//! `v1:` and the hex of nonce, ciphertext and tag. Neither the key nor a token ever
//! appears in an error or a debug print.

use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey, AES_256_GCM, NONCE_LEN};
use ring::rand::{SecureRandom, SystemRandom};

/// The prefix of a sealed token (the format's version).
const PREFIX: &str = "v1:";

/// The key tokens are sealed with.
#[derive(Clone)]
pub struct TokenKey {
    bytes: [u8; 32],
}

impl std::fmt::Debug for TokenKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenKey(<redacted>)")
    }
}

/// Why a key or a sealed token cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenKeyError {
    /// The key is not 64 hex digits.
    #[error("SOURCEBOT_TOKEN_KEY must be 32 random bytes as 64 hex digits (openssl rand -hex 32)")]
    Malformed,
    /// The system gave no randomness for a nonce.
    #[error("cannot encrypt a token: no randomness from the system")]
    NoRandomness,
    /// Encryption failed.
    #[error("cannot encrypt a token")]
    Seal,
    /// The stored value is not one this key sealed (another key, or damaged data).
    #[error("cannot decrypt a stored token: wrong SOURCEBOT_TOKEN_KEY or corrupted data")]
    Open,
}

impl TokenKey {
    /// Reads a key of 64 hex digits (surrounding whitespace ignored).
    pub fn from_hex(hex: &str) -> Result<TokenKey, TokenKeyError> {
        let hex = hex.trim();
        if hex.len() != 64 {
            return Err(TokenKeyError::Malformed);
        }
        let decoded = unhex(hex).ok_or(TokenKeyError::Malformed)?;
        let mut bytes = [0u8; 32];
        bytes.copy_from_slice(&decoded);
        Ok(TokenKey { bytes })
    }

    /// A fresh random key, for a database that keeps no token (one workspace served
    /// with `SLACK_BOT_TOKEN`, or reading feedback): nothing sealed with it outlives
    /// the process.
    pub fn random() -> Result<TokenKey, TokenKeyError> {
        let mut bytes = [0u8; 32];
        ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut bytes)
            .map_err(|_| TokenKeyError::NoRandomness)?;
        Ok(TokenKey { bytes })
    }

    fn aead(&self) -> Result<LessSafeKey, TokenKeyError> {
        UnboundKey::new(&AES_256_GCM, &self.bytes)
            .map(LessSafeKey::new)
            .map_err(|_| TokenKeyError::Seal)
    }

    /// Encrypts `plaintext` with a fresh nonce.
    pub fn seal(&self, plaintext: &str) -> Result<String, TokenKeyError> {
        let mut nonce = [0u8; NONCE_LEN];
        SystemRandom::new()
            .fill(&mut nonce)
            .map_err(|_| TokenKeyError::NoRandomness)?;
        let mut data = plaintext.as_bytes().to_vec();
        self.aead()?
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(PREFIX.as_bytes()),
                &mut data,
            )
            .map_err(|_| TokenKeyError::Seal)?;
        let mut sealed = String::with_capacity(PREFIX.len() + 2 * (NONCE_LEN + data.len()));
        sealed.push_str(PREFIX);
        for byte in nonce.iter().chain(&data) {
            sealed.push_str(&format!("{byte:02x}"));
        }
        Ok(sealed)
    }

    /// Decrypts what [`TokenKey::seal`] made with this key.
    pub fn open(&self, sealed: &str) -> Result<String, TokenKeyError> {
        let raw = sealed
            .strip_prefix(PREFIX)
            .and_then(unhex)
            .filter(|raw| raw.len() >= NONCE_LEN + AES_256_GCM.tag_len())
            .ok_or(TokenKeyError::Open)?;
        let (nonce, data) = raw.split_at(NONCE_LEN);
        let nonce = Nonce::try_assume_unique_for_key(nonce).map_err(|_| TokenKeyError::Open)?;
        let mut data = data.to_vec();
        let plain = self
            .aead()
            .map_err(|_| TokenKeyError::Open)?
            .open_in_place(nonce, Aad::from(PREFIX.as_bytes()), &mut data)
            .map_err(|_| TokenKeyError::Open)?;
        String::from_utf8(plain.to_vec()).map_err(|_| TokenKeyError::Open)
    }
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || !text.is_ascii() {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
    const OTHER: &str = "ff0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

    fn key(hex: &str) -> TokenKey {
        TokenKey::from_hex(hex).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn sealed_tokens_open_again_and_never_show_the_token() {
        let k = key(KEY);
        let sealed = k.seal("xoxb-123-secret").unwrap_or_default();
        assert!(
            sealed.starts_with("v1:") && !sealed.contains("secret"),
            "{sealed}"
        );
        assert_eq!(k.open(&sealed), Ok("xoxb-123-secret".to_string()));
        assert_ne!(
            k.seal("xoxb-123-secret").unwrap_or_default(),
            sealed,
            "a new nonce each time"
        );
    }

    #[test]
    fn a_wrong_key_or_tampering_is_caught() {
        let sealed = key(KEY).seal("xoxb-1").unwrap_or_default();
        assert_eq!(key(OTHER).open(&sealed), Err(TokenKeyError::Open));
        let mut tampered = sealed.clone().into_bytes();
        let last = tampered.len() - 1;
        tampered[last] = if tampered[last] == b'0' { b'1' } else { b'0' };
        let tampered = String::from_utf8(tampered).unwrap_or_default();
        assert_eq!(key(KEY).open(&tampered), Err(TokenKeyError::Open));
        assert_eq!(key(KEY).open("v1:zz"), Err(TokenKeyError::Open));
        assert_eq!(key(KEY).open("xoxb-plain"), Err(TokenKeyError::Open));
    }

    #[test]
    fn malformed_keys_are_refused_without_echoing_them() {
        for bad in [
            "",
            "abc",
            &KEY[..62],
            &format!("{}zz", &KEY[..62]),
            "é".repeat(32).as_str(),
        ] {
            let error = TokenKey::from_hex(bad).err();
            assert_eq!(error, Some(TokenKeyError::Malformed), "{bad:?}");
        }
        let message = TokenKeyError::Malformed.to_string();
        assert!(
            message.contains("SOURCEBOT_TOKEN_KEY") && message.contains("openssl rand -hex 32")
        );
        assert_eq!(format!("{:?}", key(KEY)), "TokenKey(<redacted>)");
        assert!(key(&format!("  {KEY}\n")).seal("x").is_ok());
    }
}
