//! Drivers for tokio (feature `tokio`): the producer and the consumer with async methods, on
//! [`AsyncDriver`] over tokio's `TcpStream` (through `embedded-io-adapters`). One task serves
//! every connection; nothing is spawned. The wall clock is the client's.

use std::time::{Duration, Instant};

use embedded_io_adapters::tokio_1::FromTokio;
use kafka_wire::conn::{FrameCutter, Growable};
use tokio::net::TcpStream;

use crate::asynch::{AsyncConnector, AsyncDriver};
use crate::producer::{Delivery, Producer, Record, RecordId, SendError, TopicId};
use crate::std_io::{now_ms, Error, MAX_FRAME};

/// Opens tokio TCP connections.
#[derive(Clone, Copy, Debug, Default)]
pub struct TokioConnector;

impl AsyncConnector for TokioConnector {
    type Stream = FromTokio<TcpStream>;

    async fn connect(&mut self, _: crate::ConnId, host: &str, port: u16) -> Option<Self::Stream> {
        let s = tokio::time::timeout(Duration::from_secs(10), TcpStream::connect((host, port)))
            .await
            .ok()?
            .ok()?;
        let _ = s.set_nodelay(true);
        Some(FromTokio::new(s))
    }
}

type Driver<const C: usize> = AsyncDriver<TokioConnector, Growable, Vec<u8>, C>;

fn driver<const C: usize>(out: usize) -> Box<Driver<C>> {
    Box::new(AsyncDriver::new(
        core::array::from_fn(|_| FrameCutter::new(Growable::new(64 << 10), MAX_FRAME)),
        vec![0; out],
    ))
}

async fn sleep(ms: u64) {
    tokio::time::sleep(Duration::from_millis(ms)).await
}

/// A [`Producer`] driven over tokio TCP by the task that awaits its methods.
pub struct TokioProducer<'c, const P: usize, const S: usize, const B: usize, const C: usize> {
    producer: Producer<'c, P, S, B, C>,
    driver: Box<Driver<C>>,
}

impl<'c, const P: usize, const S: usize, const B: usize, const C: usize> TokioProducer<'c, P, S, B, C> {
    /// Drives `producer`; requests are encoded into a buffer of `max_request` bytes (at least
    /// one batch buffer and its request's header).
    pub fn new(producer: Producer<'c, P, S, B, C>, max_request: usize) -> Self {
        TokioProducer {
            producer,
            driver: driver(max_request.max(B + 1024)),
        }
    }

    /// The producer.
    pub fn producer(&self) -> &Producer<'c, P, S, B, C> {
        &self.producer
    }

    async fn step(&mut self, max_wait: Duration, on: &mut impl FnMut(Delivery)) -> Result<(), Error> {
        let max = max_wait.as_millis().min(u128::from(u64::MAX)) as u64;
        self.driver
            .poll(&mut self.producer, &mut TokioConnector, &now_ms, sleep, max, on)
            .await
            .map_err(|crate::session::DriverError::Transmit(e)| Error::Transmit(e))
    }

    /// Waits until the topic's partitions are known (or Metadata reports an error that a retry
    /// does not mend), at most `max`.
    pub async fn wait_ready(
        &mut self,
        topic: TopicId,
        max: Duration,
        on: &mut impl FnMut(Delivery),
    ) -> Result<i32, Error> {
        let start = Instant::now();
        loop {
            if let Some(n) = self.producer.partitions(topic) {
                return Ok(n);
            }
            if let Some(e) = self.producer.auth_error() {
                return Err(Error::Authentication(e));
            }
            if let Some(e) = self.producer.topic_error(topic).filter(|e| !e.is_retriable()) {
                return Err(Error::Send(SendError::Topic(e)));
            }
            let left = max.checked_sub(start.elapsed()).ok_or(Error::Timeout)?;
            self.step(left.min(Duration::from_millis(100)), on).await?;
        }
    }

    /// Hands a record to the producer, driving the connections while it has no room (at most
    /// `max_wait`), and does what falls due.
    pub async fn send(
        &mut self,
        topic: TopicId,
        partition: Option<i32>,
        record: &Record<'_>,
        max_wait: Duration,
        on: &mut impl FnMut(Delivery),
    ) -> Result<RecordId, Error> {
        let start = Instant::now();
        loop {
            let now = now_ms();
            match self.producer.send(topic, partition, record, now) {
                Ok(id) => {
                    if self.producer.next_timeout().is_some_and(|t| t <= now) {
                        self.step(Duration::ZERO, on).await?;
                    }
                    return Ok(id);
                }
                Err(SendError::Full | SendError::NotReady) => {
                    let left = max_wait.checked_sub(start.elapsed()).ok_or(Error::Timeout)?;
                    self.step(left.min(Duration::from_millis(100)), on).await?;
                }
                Err(e) => return Err(Error::Send(e)),
            }
        }
    }

    /// Sends every open batch and waits until every record is reported, at most `max`.
    pub async fn flush(&mut self, max: Duration, on: &mut impl FnMut(Delivery)) -> Result<(), Error> {
        let start = Instant::now();
        self.producer.flush();
        while self.producer.pending() > 0 {
            let left = max.checked_sub(start.elapsed()).ok_or(Error::Timeout)?;
            self.step(left.min(Duration::from_millis(100)), on).await?;
        }
        Ok(())
    }
}

/// A [`Consumer`](crate::Consumer) driven over tokio TCP by the task that awaits its methods.
#[cfg(feature = "consumer")]
pub struct TokioConsumer<'c, const P: usize, const C: usize> {
    consumer: crate::Consumer<'c, P, C>,
    driver: Box<Driver<C>>,
}

#[cfg(feature = "consumer")]
impl<'c, const P: usize, const C: usize> TokioConsumer<'c, P, C> {
    /// Drives `consumer`.
    pub fn new(consumer: crate::Consumer<'c, P, C>) -> Self {
        TokioConsumer {
            consumer,
            driver: driver(64 << 10),
        }
    }

    /// The consumer.
    pub fn consumer(&self) -> &crate::Consumer<'c, P, C> {
        &self.consumer
    }

    /// The consumer, to assign or seek partitions.
    pub fn consumer_mut(&mut self) -> &mut crate::Consumer<'c, P, C> {
        &mut self.consumer
    }

    /// Waits until the topic's partitions are known (or Metadata reports an error that a retry
    /// does not mend), at most `max`.
    pub async fn wait_ready(&mut self, topic: TopicId, max: Duration) -> Result<i32, Error> {
        let start = Instant::now();
        loop {
            if let Some(n) = self.consumer.partitions(topic) {
                return Ok(n);
            }
            if let Some(e) = self.consumer.auth_error() {
                return Err(Error::Authentication(e));
            }
            if let Some(e) = self.consumer.topic_error(topic).filter(|e| !e.is_retriable()) {
                return Err(Error::Topic(e));
            }
            let left = max.checked_sub(start.elapsed()).ok_or(Error::Timeout)?;
            self.poll(left.min(Duration::from_millis(100)), &mut |_| {}).await?;
        }
    }

    /// Drives the connections until something arrives or `max_wait` passes, and hands `on`
    /// every record fetched meanwhile and every partition that failed.
    pub async fn poll(
        &mut self,
        max_wait: Duration,
        on: &mut impl FnMut(crate::consumer::Output<'_>),
    ) -> Result<(), Error> {
        let max = max_wait.as_millis().min(u128::from(u64::MAX)) as u64;
        self.driver
            .poll(&mut self.consumer, &mut TokioConnector, &now_ms, sleep, max, on)
            .await
            .map_err(|crate::session::DriverError::Transmit(e)| Error::Transmit(e))
    }
}
