//! BrokerRegistrationRequest v4.

#[cfg(any(feature = "probe", feature = "parse-path"))]
use core::hint::black_box;

use kafka_wire::messages::broker_registration_request::{BrokerRegistrationRequest, Feature, Listener};
use kafka_wire::{Array, Message, Uuid};

use crate::report::Checks;

const VERSION: i16 = 4;
const BROKER_ID: i32 = 3;
const CLUSTER_ID: &str = "kw-cluster-0001";
const INCARNATION_ID: u128 = 0x0123_4567_89ab_4def_8123_4567_89ab_cdef;
// (name, host, port, security protocol)
const LISTENERS: [(&str, &str, u16, i16); 2] =
    [("PLAINTEXT", "10.0.0.3", 9092, 0), ("SSL", "broker-3.example", 9093, 1)];
// (name, min, max)
const FEATURES: [(&str, i16, i16); 2] = [("metadata.version", 7, 27), ("kraft.version", 0, 1)];
const RACK: Option<&str> = Some("rack-a");
const LOG_DIRS: [u128; 2] = [
    0x1111_2222_3333_4444_5555_6666_7777_8888,
    0x9999_aaaa_bbbb_cccc_dddd_eeee_ffff_0001,
];
const PREVIOUS_BROKER_EPOCH: i64 = 0x0000_0007_0000_0001;

/// Builds the request on the stack and hands it to `f`.
fn with_request<R>(f: impl FnOnce(&BrokerRegistrationRequest<'_>) -> R) -> R {
    let listeners = LISTENERS.map(|(name, host, port, security_protocol)| Listener {
        name,
        host,
        port,
        security_protocol,
        ..Listener::DEFAULT
    });
    let features = FEATURES.map(|(name, min_supported_version, max_supported_version)| Feature {
        name,
        min_supported_version,
        max_supported_version,
        ..Feature::DEFAULT
    });
    let log_dirs = LOG_DIRS.map(Uuid::from_u128);
    let req = BrokerRegistrationRequest {
        broker_id: BROKER_ID,
        cluster_id: CLUSTER_ID,
        incarnation_id: Uuid::from_u128(INCARNATION_ID),
        listeners: Array::from_slice(&listeners),
        features: Array::from_slice(&features),
        rack: RACK,
        is_migrating_zk_broker: true,
        log_dirs: Array::from_slice(&log_dirs),
        previous_broker_epoch: PREVIOUS_BROKER_EPOCH,
        ..BrokerRegistrationRequest::DEFAULT
    };
    f(&req)
}

/// Checks every field of a parsed request.
#[cfg_attr(feature = "probe", allow(dead_code))]
fn check_view(c: &mut Checks, v: &BrokerRegistrationRequest<'_>) {
    c.eq("brr.broker_id", v.broker_id, BROKER_ID);
    c.eq("brr.cluster_id", v.cluster_id, CLUSTER_ID);
    c.eq("brr.incarnation_id", v.incarnation_id, Uuid::from_u128(INCARNATION_ID));
    c.eq("brr.listeners.len", v.listeners.len(), LISTENERS.len());
    for (l, &(name, host, port, proto)) in v.listeners.iter().zip(LISTENERS.iter()) {
        c.eq("brr.listeners[].name", l.name, name);
        c.eq("brr.listeners[].host", l.host, host);
        c.eq("brr.listeners[].port", l.port, port);
        c.eq("brr.listeners[].security_protocol", l.security_protocol, proto);
        c.check(l.unknown_tagged_fields.is_empty(), "brr.listeners[]._tagged_fields");
    }
    c.eq("brr.features.len", v.features.len(), FEATURES.len());
    for (f, &(name, min, max)) in v.features.iter().zip(FEATURES.iter()) {
        c.eq("brr.features[].name", f.name, name);
        c.eq("brr.features[].min_supported_version", f.min_supported_version, min);
        c.eq("brr.features[].max_supported_version", f.max_supported_version, max);
        c.check(f.unknown_tagged_fields.is_empty(), "brr.features[]._tagged_fields");
    }
    c.eq("brr.rack", v.rack, RACK);
    c.eq("brr.is_migrating_zk_broker", v.is_migrating_zk_broker, true);
    c.check(
        v.log_dirs.len() == LOG_DIRS.len() && v.log_dirs.iter().eq(LOG_DIRS.iter().map(|&u| Uuid::from_u128(u))),
        "brr.log_dirs",
    );
    c.eq(
        "brr.previous_broker_epoch",
        v.previous_broker_epoch,
        PREVIOUS_BROKER_EPOCH,
    );
    c.check(v.unknown_tagged_fields.is_empty(), "brr._tagged_fields");
}

#[cfg(not(any(feature = "probe", feature = "parse-path")))]
pub fn run(c: &mut Checks, buf: &mut [u8]) {
    let n = with_request(|req| match req.encode_to_slice(buf, VERSION) {
        Ok(n) => {
            c.eq("brr: encoded_len is exact", req.encoded_len(VERSION), Ok(n));
            n
        }
        Err(e) => {
            say!("FAILED: BrokerRegistrationRequest v4 encode: {}", e);
            c.check(false, "brr: encode");
            0
        }
    });
    let bytes = buf.get(..n).unwrap_or(&[]);
    match BrokerRegistrationRequest::parse(bytes, VERSION) {
        Ok(view) => {
            check_view(c, &view);
            with_request(|req| c.check(view == *req, "brr: view == value"));
            show!("BrokerRegistrationRequest v4 view", view);
            say!(
                "BrokerRegistrationRequest v{}: {} bytes, {} listeners, {} features, every field checked",
                VERSION,
                n,
                view.listeners.len(),
                view.features.len()
            );
        }
        Err(e) => {
            say!("FAILED: BrokerRegistrationRequest v4 parse: {}", e);
            c.check(false, "brr: parse");
        }
    }
}

/// Size probe: encode and parse at a version the compiler cannot see.
#[cfg(feature = "probe")]
pub fn probe(buf: &mut [u8]) {
    with_request(|req| {
        let req = black_box(req);
        if cfg!(feature = "probe-build") {
            return;
        }
        let n = req.encode_to_slice(buf, crate::probe_version(VERSION)).unwrap_or(0);
        let parsed =
            BrokerRegistrationRequest::parse(black_box(buf.get(..n).unwrap_or(&[])), crate::probe_version(VERSION));
        black_box(&parsed);
    });
}

/// Parse path: parse bytes the compiler cannot see and read every field.
#[cfg(feature = "parse-path")]
pub fn parse_path(c: &mut Checks, bytes: &[u8]) {
    if let Ok(v) = BrokerRegistrationRequest::parse(black_box(bytes), black_box(VERSION)) {
        check_view(c, &v);
    }
}
