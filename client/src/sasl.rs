//! SASL authentication (feature `sasl`): PLAIN and SCRAM-SHA-256/512 (RFC 5802, RFC 7677), as
//! Kafka speaks them: SaslHandshake (version 1) names the mechanism, then SaslAuthenticate
//! carries each message. The SCRAM maths are RustCrypto's (`sha2`, `hmac`, `pbkdf2`); nothing
//! is allocated.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use heapless::Vec;
use hmac::digest::core_api::BlockSizeUser;
use hmac::digest::Digest;
use hmac::{Mac, SimpleHmac};
use kafka_wire::ErrorCode;
use sha2::{Sha256, Sha512};

/// A SASL mechanism.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mechanism {
    /// PLAIN: the password in the clear (use it over TLS only).
    Plain,
    /// SCRAM-SHA-256.
    ScramSha256,
    /// SCRAM-SHA-512.
    ScramSha512,
}

impl Mechanism {
    /// The name Kafka knows it by.
    pub const fn name(self) -> &'static str {
        match self {
            Mechanism::Plain => "PLAIN",
            Mechanism::ScramSha256 => "SCRAM-SHA-256",
            Mechanism::ScramSha512 => "SCRAM-SHA-512",
        }
    }
}

/// Credentials, and a secret the client derives each SCRAM nonce from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sasl<'c> {
    /// The mechanism.
    pub mechanism: Mechanism,
    /// The user name.
    pub username: &'c str,
    /// The password.
    pub password: &'c str,
    /// 32 random bytes from the host (a hardware RNG, `/dev/urandom`): each connection's SCRAM
    /// nonce is an HMAC of its number under this key, so nonces do not repeat or
    /// predictably follow each other.
    pub nonce_seed: [u8; 32],
}

/// Where a connection's authentication stands.
#[derive(Clone, Debug)]
pub(crate) struct Exchange {
    step: Step,
    /// The client's first message without its GS2 header (SCRAM).
    first_bare: Vec<u8, 192>,
    /// The server's first message (SCRAM).
    server_first: Vec<u8, 256>,
    /// The server's signature the last message must carry (SCRAM).
    server_signature: Vec<u8, 64>,
    /// The message to send next.
    pub out: Vec<u8, 640>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Handshake,
    First,
    Final,
    Done,
}

/// What the broker's answer means for the exchange.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Next {
    /// Send `Exchange::out` in a SaslAuthenticate.
    Send,
    /// Authenticated.
    Done,
}

/// The longest SCRAM nonce the client sends, in base64 characters.
const NONCE: usize = 32;

impl Exchange {
    /// A new exchange.
    pub fn new() -> Self {
        Exchange {
            step: Step::Handshake,
            first_bare: Vec::new(),
            server_first: Vec::new(),
            server_signature: Vec::new(),
            out: Vec::new(),
        }
    }

    /// True before the handshake is answered: the next request is a SaslHandshake.
    pub fn handshake_next(&self) -> bool {
        self.step == Step::Handshake
    }

    /// The SaslHandshake answer: the mechanism must be enabled. Prepares the first message.
    pub fn on_handshake(&mut self, sasl: &Sasl<'_>, error: ErrorCode, attempt: u64) -> Result<Next, ErrorCode> {
        if !error.is_none() {
            return Err(error);
        }
        self.out.clear();
        match sasl.mechanism {
            Mechanism::Plain => {
                // authzid NUL authcid NUL passwd, with no authzid.
                push(&mut self.out, b"\0")?;
                push(&mut self.out, sasl.username.as_bytes())?;
                push(&mut self.out, b"\0")?;
                push(&mut self.out, sasl.password.as_bytes())?;
                self.step = Step::Final;
            }
            Mechanism::ScramSha256 | Mechanism::ScramSha512 => {
                let mut mac = <SimpleHmac<Sha256> as Mac>::new_from_slice(&sasl.nonce_seed).map_err(|_| FAILED)?;
                mac.update(&attempt.to_le_bytes());
                let raw = mac.finalize().into_bytes();
                let mut nonce = [0u8; 44];
                let n = STANDARD.encode_slice(raw, &mut nonce).map_err(|_| FAILED)?;
                // '+' and '/' are printable and not ','; '=' padding is left out.
                let nonce = nonce.get(..n.min(NONCE)).ok_or(FAILED)?;
                self.start_scram(sasl, nonce)?;
            }
        }
        Ok(Next::Send)
    }

    /// The SCRAM client-first message with `nonce`.
    fn start_scram(&mut self, sasl: &Sasl<'_>, nonce: &[u8]) -> Result<(), ErrorCode> {
        self.first_bare.clear();
        push(&mut self.first_bare, b"n=")?;
        for b in sasl.username.bytes() {
            match b {
                b'=' => push(&mut self.first_bare, b"=3D")?,
                b',' => push(&mut self.first_bare, b"=2C")?,
                b => push(&mut self.first_bare, &[b])?,
            }
        }
        push(&mut self.first_bare, b",r=")?;
        push(&mut self.first_bare, nonce)?;
        self.out.clear();
        push(&mut self.out, b"n,,")?;
        let bare = self.first_bare.clone();
        push(&mut self.out, &bare)?;
        self.step = Step::First;
        Ok(())
    }

    /// A SaslAuthenticate answer: the server's message, or its refusal.
    pub fn on_authenticate(&mut self, sasl: &Sasl<'_>, error: ErrorCode, bytes: &[u8]) -> Result<Next, ErrorCode> {
        if !error.is_none() {
            return Err(error);
        }
        match self.step {
            Step::First => {
                self.server_first.clear();
                push(&mut self.server_first, bytes)?;
                let r = attr(bytes, b'r').ok_or(FAILED)?;
                let nonce = self.first_bare.rsplit(|b| *b == b'=').next().ok_or(FAILED)?;
                if !r.starts_with(nonce) || r.len() <= nonce.len() {
                    return Err(FAILED);
                }
                let salt_b64 = attr(bytes, b's').ok_or(FAILED)?;
                let mut salt = [0u8; 128];
                let salt_len = STANDARD.decode_slice(salt_b64, &mut salt).map_err(|_| FAILED)?;
                let salt = salt.get(..salt_len).ok_or(FAILED)?;
                let iterations = core::str::from_utf8(attr(bytes, b'i').ok_or(FAILED)?)
                    .ok()
                    .and_then(|s| s.parse::<u32>().ok())
                    .filter(|i| (1..=1_000_000).contains(i))
                    .ok_or(FAILED)?;
                let mut without_proof: Vec<u8, 256> = Vec::new();
                push(&mut without_proof, b"c=biws,r=")?;
                push(&mut without_proof, r)?;
                let mut proof = [0u8; 64];
                let mut server = [0u8; 64];
                let n = match sasl.mechanism {
                    Mechanism::ScramSha512 => scram::<Sha512>(
                        sasl.password.as_bytes(),
                        salt,
                        iterations,
                        [&self.first_bare, b",", &self.server_first, b",", &without_proof],
                        &mut proof,
                        &mut server,
                    )?,
                    _ => scram::<Sha256>(
                        sasl.password.as_bytes(),
                        salt,
                        iterations,
                        [&self.first_bare, b",", &self.server_first, b",", &without_proof],
                        &mut proof,
                        &mut server,
                    )?,
                };
                self.server_signature.clear();
                push(&mut self.server_signature, server.get(..n).ok_or(FAILED)?)?;
                self.out.clear();
                push(&mut self.out, &without_proof)?;
                push(&mut self.out, b",p=")?;
                let mut b64 = [0u8; 88];
                let len = STANDARD
                    .encode_slice(proof.get(..n).ok_or(FAILED)?, &mut b64)
                    .map_err(|_| FAILED)?;
                push(&mut self.out, b64.get(..len).ok_or(FAILED)?)?;
                self.step = Step::Final;
                Ok(Next::Send)
            }
            Step::Final => {
                if matches!(sasl.mechanism, Mechanism::ScramSha256 | Mechanism::ScramSha512) {
                    // The server proves it knows the password too.
                    let v = attr(bytes, b'v').ok_or(FAILED)?;
                    let mut sig = [0u8; 64];
                    let n = STANDARD.decode_slice(v, &mut sig).map_err(|_| FAILED)?;
                    if sig.get(..n) != Some(&self.server_signature[..]) {
                        return Err(FAILED);
                    }
                }
                self.step = Step::Done;
                Ok(Next::Done)
            }
            Step::Handshake | Step::Done => Err(FAILED),
        }
    }
}

/// How a failed exchange is reported when the broker did not say.
const FAILED: ErrorCode = ErrorCode::SaslAuthenticationFailed;

fn push<const N: usize>(v: &mut Vec<u8, N>, bytes: &[u8]) -> Result<(), ErrorCode> {
    v.extend_from_slice(bytes).map_err(|_| FAILED)
}

/// The value of attribute `name` in a SCRAM message (`name=value,...`).
fn attr(msg: &[u8], name: u8) -> Option<&[u8]> {
    msg.split(|b| *b == b',')
        .find(|a| a.len() >= 2 && a.first() == Some(&name) && a.get(1) == Some(&b'='))
        .and_then(|a| a.get(2..))
}

/// The SCRAM client proof and server signature for `auth_message` (given in parts); returns
/// the hash's length.
fn scram<D: Digest + BlockSizeUser + Clone + Sync>(
    password: &[u8],
    salt: &[u8],
    iterations: u32,
    auth_message: [&[u8]; 5],
    proof: &mut [u8; 64],
    server: &mut [u8; 64],
) -> Result<usize, ErrorCode> {
    let n = <D as Digest>::output_size();
    let mut salted = [0u8; 64];
    let salted = salted.get_mut(..n).ok_or(FAILED)?;
    pbkdf2::pbkdf2::<SimpleHmac<D>>(password, salt, iterations, salted).map_err(|_| FAILED)?;
    let hmac = |key: &[u8], parts: &[&[u8]]| -> Result<hmac::digest::Output<D>, ErrorCode> {
        let mut m = <SimpleHmac<D> as Mac>::new_from_slice(key).map_err(|_| FAILED)?;
        for p in parts {
            m.update(p);
        }
        Ok(m.finalize().into_bytes())
    };
    let client_key = hmac(salted, &[b"Client Key"])?;
    let stored_key = D::digest(&client_key);
    let signature = hmac(&stored_key, &auth_message)?;
    for ((p, k), s) in proof.iter_mut().zip(client_key.iter()).zip(signature.iter()) {
        *p = k ^ s;
    }
    let server_key = hmac(salted, &[b"Server Key"])?;
    let server_signature = hmac(&server_key, &auth_message)?;
    for (o, s) in server.iter_mut().zip(server_signature.iter()) {
        *o = *s;
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 7677, section 3: the SCRAM-SHA-256 exchange of user "user", password "pencil".
    #[test]
    fn rfc_7677_exchange() {
        let sasl = Sasl {
            mechanism: Mechanism::ScramSha256,
            username: "user",
            password: "pencil",
            nonce_seed: [0; 32],
        };
        let mut x = Exchange::new();
        x.out.clear();
        x.start_scram(&sasl, b"rOprNGfwEbeRWgbNEkqO").unwrap();
        assert_eq!(&x.out[..], b"n,,n=user,r=rOprNGfwEbeRWgbNEkqO");
        let server_first = b"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
        assert_eq!(x.on_authenticate(&sasl, ErrorCode::None, server_first), Ok(Next::Send));
        assert_eq!(
            core::str::from_utf8(&x.out).unwrap(),
            "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
        );
        let mut wrong = x.clone();
        assert_eq!(
            x.on_authenticate(
                &sasl,
                ErrorCode::None,
                b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="
            ),
            Ok(Next::Done)
        );
        assert_eq!(
            wrong.on_authenticate(
                &sasl,
                ErrorCode::None,
                b"v=7rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="
            ),
            Err(ErrorCode::SaslAuthenticationFailed),
            "a server that does not prove it knows the password"
        );
    }

    #[test]
    fn a_server_nonce_that_does_not_extend_ours_is_refused() {
        let sasl = Sasl {
            mechanism: Mechanism::ScramSha512,
            username: "user",
            password: "pencil",
            nonce_seed: [0; 32],
        };
        let mut x = Exchange::new();
        x.start_scram(&sasl, b"abc").unwrap();
        assert_eq!(
            x.on_authenticate(&sasl, ErrorCode::None, b"r=xyz123,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"),
            Err(ErrorCode::SaslAuthenticationFailed)
        );
    }
}
