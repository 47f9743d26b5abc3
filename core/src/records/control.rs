//! Control records (transaction markers, raft control records) and KRaft metadata records
//! inside batches.

use super::record::{Record, RecordIter, Records};
use crate::codec::Message;
use crate::error::{DecodeError, DecodeErrorKind as K};
use crate::frame::FramedMetadataRecord;
use crate::generated::messages::{
    EndTxnMarker, KRaftVersionRecord, LeaderChangeMessage, SnapshotFooterRecord, SnapshotHeaderRecord, VotersRecord,
};
use crate::reflect::StructDesc;

const NAME: &str = "ControlRecord";

/// The type of a control record: the `int16` after the key's version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ControlRecordType {
    /// 0: a transaction was aborted (value: `EndTxnMarker`).
    Abort,
    /// 1: a transaction was committed (value: `EndTxnMarker`).
    Commit,
    /// 2: a new raft leader (value: `LeaderChangeMessage`).
    LeaderChange,
    /// 3: the first record of a KRaft snapshot (value: `SnapshotHeaderRecord`).
    SnapshotHeader,
    /// 4: the last record of a KRaft snapshot (value: `SnapshotFooterRecord`).
    SnapshotFooter,
    /// 5: the kraft.version feature level (value: `KRaftVersionRecord`).
    KRaftVersion,
    /// 6: the set of voters (value: `VotersRecord`).
    KRaftVoters,
    /// A type this crate does not know, kept as read.
    Unknown(i16),
}

impl ControlRecordType {
    /// The type for an id.
    pub const fn from_i16(id: i16) -> Self {
        match id {
            0 => ControlRecordType::Abort,
            1 => ControlRecordType::Commit,
            2 => ControlRecordType::LeaderChange,
            3 => ControlRecordType::SnapshotHeader,
            4 => ControlRecordType::SnapshotFooter,
            5 => ControlRecordType::KRaftVersion,
            6 => ControlRecordType::KRaftVoters,
            n => ControlRecordType::Unknown(n),
        }
    }
    /// The id.
    pub const fn id(self) -> i16 {
        match self {
            ControlRecordType::Abort => 0,
            ControlRecordType::Commit => 1,
            ControlRecordType::LeaderChange => 2,
            ControlRecordType::SnapshotHeader => 3,
            ControlRecordType::SnapshotFooter => 4,
            ControlRecordType::KRaftVersion => 5,
            ControlRecordType::KRaftVoters => 6,
            ControlRecordType::Unknown(n) => n,
        }
    }
    /// The name Kafka gives it: `ABORT`, `COMMIT`, `LEADER_CHANGE`, `SNAPSHOT_HEADER`,
    /// `SNAPSHOT_FOOTER`, `KRAFT_VERSION`, `KRAFT_VOTERS`, or `UNKNOWN`.
    pub const fn name(self) -> &'static str {
        match self {
            ControlRecordType::Abort => "ABORT",
            ControlRecordType::Commit => "COMMIT",
            ControlRecordType::LeaderChange => "LEADER_CHANGE",
            ControlRecordType::SnapshotHeader => "SNAPSHOT_HEADER",
            ControlRecordType::SnapshotFooter => "SNAPSHOT_FOOTER",
            ControlRecordType::KRaftVersion => "KRAFT_VERSION",
            ControlRecordType::KRaftVoters => "KRAFT_VOTERS",
            ControlRecordType::Unknown(_) => "UNKNOWN",
        }
    }
}

/// A control record's value, decoded through the generated types.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ControlValue<'a> {
    /// ABORT or COMMIT: the transaction marker.
    EndTxn(EndTxnMarker<'a>),
    /// LEADER_CHANGE.
    LeaderChange(LeaderChangeMessage<'a>),
    /// SNAPSHOT_HEADER.
    SnapshotHeader(SnapshotHeaderRecord<'a>),
    /// SNAPSHOT_FOOTER.
    SnapshotFooter(SnapshotFooterRecord<'a>),
    /// KRAFT_VERSION.
    KRaftVersion(KRaftVersionRecord<'a>),
    /// KRAFT_VOTERS.
    Voters(VotersRecord<'a>),
    /// An unknown type: the value is not decoded.
    Unknown,
}

impl ControlValue<'_> {
    /// The field-level schema of the value, for generic walkers (JSON); `None` when unknown.
    pub fn schema(&self) -> Option<&'static StructDesc> {
        Some(match self {
            ControlValue::EndTxn(_) => EndTxnMarker::SCHEMA,
            ControlValue::LeaderChange(_) => LeaderChangeMessage::SCHEMA,
            ControlValue::SnapshotHeader(_) => SnapshotHeaderRecord::SCHEMA,
            ControlValue::SnapshotFooter(_) => SnapshotFooterRecord::SCHEMA,
            ControlValue::KRaftVersion(_) => KRaftVersionRecord::SCHEMA,
            ControlValue::Voters(_) => VotersRecord::SCHEMA,
            ControlValue::Unknown => return None,
        })
    }
}

/// A decoded control record.
///
/// The key is `int16` version and `int16` type (a key version above 0 is read as version 0, as
/// Kafka does). Transaction markers' values are an `int16` version then `EndTxnMarker` at that
/// version (a version above the highest known is read at the highest, ignoring extra bytes, as
/// Kafka does). Raft control records' values are the bare struct, read at version 0 (Kafka's
/// current version for each; their first field is their own `version`), extra bytes ignored.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ControlRecord<'a> {
    /// The key's version.
    pub key_version: i16,
    /// The type.
    pub record_type: ControlRecordType,
    /// The version the value was read at; -1 for an unknown type.
    pub version: i16,
    /// The value.
    pub value: ControlValue<'a>,
    /// The value's struct bytes (after a marker's version prefix; without ignored extra bytes);
    /// for an unknown type, the whole value.
    pub value_bytes: &'a [u8],
}

/// Decodes a control record from a record's key and value. Error offsets are from the start of
/// the key for fields named `key…`, else from the start of the value.
pub fn parse_control_record<'a>(
    key: Option<&'a [u8]>,
    value: Option<&'a [u8]>,
) -> Result<ControlRecord<'a>, DecodeError> {
    let Some(key) = key else {
        return Err(DecodeError::new_at(K::NullNotAllowed, 0, NAME, -1, "key"));
    };
    let Some((head, _)) = key.split_first_chunk::<4>() else {
        return Err(DecodeError::new_at(
            K::UnexpectedEof { needed: 4 - key.len() },
            key.len(),
            NAME,
            -1,
            "key",
        ));
    };
    let kv = i16::from_be_bytes([head[0], head[1]]);
    let kt = i16::from_be_bytes([head[2], head[3]]);
    if kv < 0 {
        return Err(DecodeError::new_at(
            K::InvalidFrame { value: i64::from(kv) },
            0,
            NAME,
            -1,
            "key.version",
        ));
    }
    let record_type = ControlRecordType::from_i16(kt);
    if let ControlRecordType::Unknown(_) = record_type {
        return Ok(ControlRecord {
            key_version: kv,
            record_type,
            version: -1,
            value: ControlValue::Unknown,
            value_bytes: value.unwrap_or(&[]),
        });
    }
    let Some(v) = value else {
        return Err(DecodeError::new_at(K::NullNotAllowed, 0, NAME, -1, "value"));
    };
    let (version, value, value_bytes) = match record_type {
        ControlRecordType::Abort | ControlRecordType::Commit => {
            let Some((head, body)) = v.split_first_chunk::<2>() else {
                return Err(DecodeError::new_at(
                    K::UnexpectedEof { needed: 2 - v.len() },
                    v.len(),
                    NAME,
                    -1,
                    "value.version",
                ));
            };
            let wire_version = i16::from_be_bytes(*head);
            if wire_version < 0 {
                return Err(DecodeError::new_at(
                    K::InvalidFrame {
                        value: i64::from(wire_version),
                    },
                    0,
                    NAME,
                    -1,
                    "value.version",
                ));
            }
            let version = wire_version.min(EndTxnMarker::INFO.max_version);
            let (m, rest) = EndTxnMarker::parse_lenient(body, version).map_err(|e| e.shifted(2))?;
            (
                version,
                ControlValue::EndTxn(m),
                body.get(..body.len() - rest.len()).unwrap_or(body),
            )
        }
        ControlRecordType::LeaderChange => raft(v, ControlValue::LeaderChange)?,
        ControlRecordType::SnapshotHeader => raft(v, ControlValue::SnapshotHeader)?,
        ControlRecordType::SnapshotFooter => raft(v, ControlValue::SnapshotFooter)?,
        ControlRecordType::KRaftVersion => raft(v, ControlValue::KRaftVersion)?,
        ControlRecordType::KRaftVoters => raft(v, ControlValue::Voters)?,
        ControlRecordType::Unknown(_) => (-1, ControlValue::Unknown, v),
    };
    Ok(ControlRecord {
        key_version: kv,
        record_type,
        version,
        value,
        value_bytes,
    })
}

fn raft<'a, M: Message<'a>>(
    v: &'a [u8],
    wrap: fn(M) -> ControlValue<'a>,
) -> Result<(i16, ControlValue<'a>, &'a [u8]), DecodeError> {
    let (m, rest) = M::parse_lenient(v, 0)?;
    Ok((0, wrap(m), v.get(..v.len() - rest.len()).unwrap_or(v)))
}

/// The records of a control batch, each with its decoded control record; built by
/// [`Records::control`](super::Records::control), which decoded them all, so iterating cannot
/// fail.
#[derive(Clone, Debug)]
pub struct ControlRecords<'a> {
    it: RecordIter<'a>,
}

impl<'a> ControlRecords<'a> {
    pub(crate) fn new(it: RecordIter<'a>) -> Self {
        ControlRecords { it }
    }
}

impl<'a> Iterator for ControlRecords<'a> {
    type Item = (Record<'a>, ControlRecord<'a>);
    fn next(&mut self) -> Option<Self::Item> {
        let r = self.it.next()?;
        // Decoded once already: this cannot fail.
        let c = r.control().ok()?;
        Some((r, c))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.it.size_hint()
    }
}

/// The records of a `__cluster_metadata` data batch, each with its framed metadata record;
/// built by [`Records::metadata`](super::Records::metadata), which decoded them all, so
/// iterating cannot fail.
#[derive(Clone, Debug)]
pub struct MetadataRecords<'a> {
    it: RecordIter<'a>,
}

impl<'a> MetadataRecords<'a> {
    pub(crate) fn new(it: RecordIter<'a>) -> Self {
        MetadataRecords { it }
    }
}

impl<'a> Iterator for MetadataRecords<'a> {
    type Item = (Record<'a>, FramedMetadataRecord<'a>);
    #[inline] // reaches every metadata record: compiled where it is used (`codec::outline`)
    fn next(&mut self) -> Option<Self::Item> {
        let r = self.it.next()?;
        // Decoded once already: this cannot fail.
        let m = r.metadata().ok()?;
        Some((r, m))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.it.size_hint()
    }
}

impl<'a> Records<'a> {
    /// Decodes every record as a control record (a control batch's), all at once; the
    /// iterator then cannot fail. The first record that does not decode is the error.
    pub fn control(&self) -> Result<ControlRecords<'a>, DecodeError> {
        for r in self.iter() {
            r.control()?;
        }
        Ok(ControlRecords::new(self.iter()))
    }
    /// Decodes every record's value as a framed KRaft metadata record (a `__cluster_metadata`
    /// data batch's), all at once; the iterator then cannot fail.
    #[inline] // reaches every metadata record: compiled where it is used
    pub fn metadata(&self) -> Result<MetadataRecords<'a>, DecodeError> {
        for r in self.iter() {
            r.metadata()?;
        }
        Ok(MetadataRecords::new(self.iter()))
    }
}

impl<'a> Record<'a> {
    /// Decodes this record as a control record: the key's `int16` version and `int16` type, then
    /// the value. Error offsets are from the start of the input, like [`Record::position`].
    pub fn control(&self) -> Result<ControlRecord<'a>, DecodeError> {
        parse_control_record(self.key, self.value).map_err(|e| e.shifted(self.key_at_for(e.field())))
    }
    /// Decodes this record's value as a framed KRaft metadata record. A null value is
    /// [`DecodeErrorKind::NullNotAllowed`](crate::DecodeErrorKind).
    #[inline] // reaches every metadata record: compiled where it is used
    pub fn metadata(&self) -> Result<FramedMetadataRecord<'a>, DecodeError> {
        let Some(v) = self.value else {
            return Err(DecodeError::new_at(
                K::NullNotAllowed,
                self.value_at,
                "MetadataRecordFrame",
                -1,
                "records[].value",
            ));
        };
        crate::frame::parse_metadata_record(v).map_err(|e| e.shifted(self.value_at))
    }

    /// Where a control-record error's offset is counted from: the key for key fields, the value
    /// for the rest.
    fn key_at_for(&self, field: &str) -> usize {
        if field.starts_with("key") {
            self.key_at
        } else {
            self.value_at
        }
    }
}
