//! kafka-wire-client on bare metal: a Cortex-M4F firmware that produces to a Kafka broker.
//!
//! Run by `.ci/bare-metal.sh` under QEMU on mps2-an386, whose UART0 QEMU connects to the
//! broker's port (`-serial tcp:127.0.0.1:PORT`): the UART is the producer's one connection, and
//! the firmware writes and reads Kafka frames over it. Semihosting gives the arguments
//! (`-semihosting-config arg=…`: the broker's port, the topic, the number of records) and
//! prints the result.
//!
//! The firmware negotiates versions, asks Metadata, gets a producer id and sends COUNT records
//! (key `fw-<i mod 4>`, value `firmware record <i>`) with acks=all, idempotent, through
//! `kafka_wire_client::embedded::Driver`; it prints `firmware producer: N of COUNT records
//! delivered, F failed` and the peak stack, and exits 0 when every record was delivered.
//!
//! The clock is SysTick at 1 kHz. The one `unsafe` block is the UART's registers.

#![no_std]
#![no_main]
#![deny(unsafe_code)]

use core::fmt::Write as _;
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use cortex_m::peripheral::syst::SystClkSource;
use cortex_m_rt::{entry, exception};
use cortex_m_semihosting::{debug, hprintln};
use kafka_wire_client::embedded::{Connector, Driver};
use kafka_wire_client::{Config, ConnId, Delivery, Producer, Record, SendError, TopicId};

/// Milliseconds since reset, counted by SysTick.
static MS: AtomicU32 = AtomicU32::new(0);

#[exception]
fn SysTick() {
    MS.fetch_add(1, Ordering::Relaxed);
}

fn now() -> u64 {
    u64::from(MS.load(Ordering::Relaxed))
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    hprintln!("firmware producer: panic: {}", info);
    debug::exit(debug::EXIT_FAILURE);
    loop {}
}

/// The CMSDK APB UART0 of mps2-an386, polled.
mod uart {
    const BASE: usize = 0x4000_4000;
    const DATA: usize = BASE;
    const STATE: usize = BASE + 0x4;
    const CTRL: usize = BASE + 0x8;
    const BAUDDIV: usize = BASE + 0x10;
    const TX_FULL: u32 = 1;
    const RX_FULL: u32 = 2;

    #[allow(unsafe_code)]
    fn read(addr: usize) -> u32 {
        // SAFETY: a device register of the UART, 4-byte aligned, always mapped on this board.
        unsafe { core::ptr::read_volatile(addr as *const u32) }
    }

    #[allow(unsafe_code)]
    fn write(addr: usize, v: u32) {
        // SAFETY: as in `read`.
        unsafe { core::ptr::write_volatile(addr as *mut u32, v) }
    }

    /// Transmit and receive on, the slowest divider QEMU accepts.
    pub fn init() {
        write(BAUDDIV, 16);
        write(CTRL, 0b11);
    }

    pub fn rx_ready() -> bool {
        read(STATE) & RX_FULL != 0
    }

    pub fn get() -> u8 {
        read(DATA) as u8
    }

    pub fn put(b: u8) {
        while read(STATE) & TX_FULL != 0 {}
        write(DATA, u32::from(b));
    }
}

/// The UART as an `embedded-io` stream: the connection to the broker.
struct Serial;

static TAKEN: AtomicBool = AtomicBool::new(false);

impl Drop for Serial {
    fn drop(&mut self) {
        TAKEN.store(false, Ordering::Relaxed);
    }
}

impl embedded_io::ErrorType for Serial {
    type Error = core::convert::Infallible;
}

impl embedded_io::Read for Serial {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
        let mut n = 0;
        for b in buf.iter_mut() {
            while !uart::rx_ready() {
                if n > 0 {
                    return Ok(n);
                }
            }
            *b = uart::get();
            n += 1;
        }
        Ok(n)
    }
}

impl embedded_io::ReadReady for Serial {
    fn read_ready(&mut self) -> Result<bool, Self::Error> {
        Ok(uart::rx_ready())
    }
}

impl embedded_io::Write for Serial {
    fn write(&mut self, buf: &[u8]) -> Result<usize, Self::Error> {
        for &b in buf {
            uart::put(b);
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// One connection: the serial link, whatever the broker's address.
struct Link;

impl Connector for Link {
    type Stream = Serial;
    fn connect(&mut self, _conn: ConnId, _host: &str, _port: u16) -> Option<Serial> {
        if TAKEN.swap(true, Ordering::Relaxed) {
            return None;
        }
        Some(Serial)
    }
}

/// The semihosting command line: `firmware PORT TOPIC COUNT`.
fn cmdline(buf: &mut [u8; 128]) -> Option<(u16, &str, u32)> {
    let mut block = [buf.as_mut_ptr() as usize, buf.len() - 1];
    #[allow(unsafe_code)]
    // SAFETY: SYS_GET_CMDLINE writes at most block[1] bytes into `buf` and their count into
    // block[1]; both outlive the call.
    let rc =
        unsafe { cortex_m_semihosting::syscall1(cortex_m_semihosting::nr::GET_CMDLINE, block.as_mut_ptr() as usize) };
    if rc != 0 {
        return None;
    }
    let line = core::str::from_utf8(buf.get(..block[1])?).ok()?;
    let mut words = line.split_ascii_whitespace().skip(1);
    let port = words.next()?.parse().ok()?;
    let topic = words.next()?;
    let count = words.next()?.parse().ok()?;
    Some((port, topic, count))
}

type FwProducer<'c> = Producer<'c, 4, 2, 1024, 2>;
type FwDriver = Driver<Link, 2, 2048, 1280>;

#[entry]
fn main() -> ! {
    let mut cp = cortex_m::Peripherals::take().unwrap_or_else(|| fail("no core peripherals"));
    // SysTick at 1 kHz from the 25 MHz core clock.
    cp.SYST.set_clock_source(SystClkSource::Core);
    cp.SYST.set_reload(25_000 - 1);
    cp.SYST.clear_current();
    cp.SYST.enable_interrupt();
    cp.SYST.enable_counter();
    uart::init();

    let mut args = [0u8; 128];
    let Some((port, topic, count)) = cmdline(&mut args) else {
        fail("usage: firmware PORT TOPIC COUNT (semihosting arguments)")
    };
    let topics = [topic];
    let bootstrap = [("127.0.0.1", port)];
    let config = Config::new("kw-firmware", &bootstrap);
    let mut producer: FwProducer<'_> = match Producer::new(config, &topics) {
        Ok(p) => p,
        Err(_) => fail("the producer's configuration"),
    };
    let mut driver = FwDriver::new();
    let mut link = Link;
    let (mut delivered, mut failed) = (0u32, 0u32);
    let mut on = |d: Delivery| match d.result {
        Ok(_) => delivered += d.count,
        Err(_) => failed += d.count,
    };
    let start = now();
    let mut key: heapless::String<16> = heapless::String::new();
    let mut value: heapless::String<48> = heapless::String::new();
    for i in 0..count {
        key.clear();
        value.clear();
        let _ = write!(key, "fw-{}", i % 4);
        let _ = write!(value, "firmware record {}", i);
        let record = Record {
            key: Some(key.as_bytes()),
            value: Some(value.as_bytes()),
            ..Record::DEFAULT
        };
        loop {
            match producer.send(TopicId(0), None, &record, now()) {
                Ok(_) => break,
                Err(SendError::Full | SendError::NotReady) => {}
                Err(_) => fail("a record was refused"),
            }
            if driver.poll(&mut producer, &mut link, now(), &mut on).is_err() {
                fail("a request did not fit the output buffer");
            }
            if now() - start > 60_000 {
                fail("timed out waiting for the broker");
            }
        }
        if driver.poll(&mut producer, &mut link, now(), &mut on).is_err() {
            fail("a request did not fit the output buffer");
        }
    }
    producer.flush();
    while producer.pending() > 0 {
        if driver.poll(&mut producer, &mut link, now(), &mut on).is_err() {
            fail("a request did not fit the output buffer");
        }
        if now() - start > 120_000 {
            fail("timed out waiting for delivery reports");
        }
    }
    let took = now() - start;
    hprintln!(
        "firmware producer: {} of {} records delivered, {} failed, in {} ms",
        delivered,
        count,
        failed,
        took
    );
    let size = cortex_m_stack::stack_size();
    hprintln!(
        "stack peak: {} bytes of {}",
        size - cortex_m_stack::stack_painted(),
        size
    );
    debug::exit(if delivered == count && failed == 0 {
        debug::EXIT_SUCCESS
    } else {
        debug::EXIT_FAILURE
    });
    loop {}
}

fn fail(why: &str) -> ! {
    hprintln!("firmware producer: FAILED: {}", why);
    debug::exit(debug::EXIT_FAILURE);
    loop {}
}
