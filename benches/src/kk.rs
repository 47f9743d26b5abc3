//! krabka-protocol 0.8 on the same bytes (feature `krabka`): its owned decode from a shared
//! `Bytes` and its borrowed (zero-copy) decode. Its MSRV is above this machine's stable Rust;
//! it builds with `cargo build --ignore-rust-version` (`callgrind.sh` does so).
//!
//! Before anything is measured, `check` decodes each input with both of its flavours and
//! re-encodes the value: both must consume the input and give it back byte for byte.

use std::hint::black_box;

use bytes::{Bytes, BytesMut};
use krabka_protocol::{Decode, DecodeBorrow, Encode};

/// A message's two krabka-protocol flavours.
pub trait Kk: 'static {
    /// Owned decode from a received buffer (strings and bytes sliced from it where it can).
    fn owned(b: &Bytes, v: i16) -> Result<(), String>;
    /// Borrowed decode.
    fn borrowed(b: &[u8], v: i16) -> Result<(), String>;
    /// Both flavours decode `bytes` whole and re-encode it byte for byte.
    fn check(bytes: &[u8], v: i16) -> Result<(), String>;
}

macro_rules! kk {
    ($($name:ident => $module:ident :: $ty:ident;)*) => {$(
        /// krabka-protocol's flavours of this message.
        pub struct $name;

        impl Kk for $name {
            fn owned(b: &Bytes, v: i16) -> Result<(), String> {
                let mut b = b.clone();
                let m = krabka_protocol::owned::$module::$ty::decode(&mut b, v).map_err(|e| e.to_string())?;
                black_box(&m);
                Ok(())
            }

            fn borrowed(b: &[u8], v: i16) -> Result<(), String> {
                let mut s = b;
                let m = krabka_protocol::borrowed::$module::$ty::decode_borrow(&mut s, v).map_err(|e| e.to_string())?;
                black_box(&m);
                Ok(())
            }

            fn check(bytes: &[u8], v: i16) -> Result<(), String> {
                let mut b = Bytes::copy_from_slice(bytes);
                let m = krabka_protocol::owned::$module::$ty::decode(&mut b, v)
                    .map_err(|e| format!("krabka-protocol owned decode: {e}"))?;
                if !b.is_empty() {
                    return Err(format!("krabka-protocol's owned decode left {} bytes", b.len()));
                }
                let mut out = BytesMut::new();
                m.encode(&mut out, v).map_err(|e| format!("krabka-protocol owned encode: {e}"))?;
                if out[..] != *bytes {
                    return Err("krabka-protocol's re-encoding of its owned value differs from the input".into());
                }
                let mut s = bytes;
                let m = krabka_protocol::borrowed::$module::$ty::decode_borrow(&mut s, v)
                    .map_err(|e| format!("krabka-protocol borrowed decode: {e}"))?;
                if !s.is_empty() {
                    return Err(format!("krabka-protocol's borrowed decode left {} bytes", s.len()));
                }
                let mut out = BytesMut::new();
                m.encode(&mut out, v).map_err(|e| format!("krabka-protocol borrowed encode: {e}"))?;
                if out[..] != *bytes {
                    return Err("krabka-protocol's re-encoding of its borrowed value differs from the input".into());
                }
                Ok(())
            }
        }
    )*};
}

kk! {
    MetadataResponse => metadata_response::MetadataResponse;
    AlterPartitionRequest => alter_partition_request::AlterPartitionRequest;
    FetchResponse => fetch_response::FetchResponse;
    ProduceRequest => produce_request::ProduceRequest;
    BrokerRegistrationRequest => broker_registration_request::BrokerRegistrationRequest;
    ApiVersionsResponse => api_versions_response::ApiVersionsResponse;
    PartitionChangeRecord => partition_change_record::PartitionChangeRecord;
    PartitionRecord => partition_record::PartitionRecord;
}
