//! `headway serve`'s NBD server against a client written from the protocol, over a Unix
//! socket, with the fixed-latency stand-in model: data round trips, refusals, the connection
//! limit, a malformed frame, pacing, the arrivals file.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use headway::serve::{FixedLatency, Listen, ModelDevice, ServeOptions, Server};

const IHAVEOPT: u64 = 0x4948_4156_454f_5054;
const REQUEST_MAGIC: u32 = 0x2560_9513;
const EINVAL: u32 = 22;

struct Client {
    s: UnixStream,
    size_bytes: u64,
}

impl Client {
    /// Fixed newstyle, no zeroes, then NBD_OPT_GO on `name`.
    fn connect(path: &PathBuf, name: &str) -> std::io::Result<Client> {
        let mut s = UnixStream::connect(path)?;
        s.set_read_timeout(Some(Duration::from_secs(10)))?;
        let mut hello = [0u8; 18];
        s.read_exact(&mut hello)?;
        assert_eq!(&hello[0..8], b"NBDMAGIC");
        assert_eq!(
            u64::from_be_bytes(hello[8..16].try_into().unwrap()),
            IHAVEOPT
        );
        s.write_all(&3u32.to_be_bytes())?;
        let mut opt = Vec::new();
        opt.extend_from_slice(&IHAVEOPT.to_be_bytes());
        opt.extend_from_slice(&7u32.to_be_bytes());
        opt.extend_from_slice(&(4 + name.len() as u32 + 2).to_be_bytes());
        opt.extend_from_slice(&(name.len() as u32).to_be_bytes());
        opt.extend_from_slice(name.as_bytes());
        opt.extend_from_slice(&0u16.to_be_bytes());
        s.write_all(&opt)?;
        let mut size_bytes = 0;
        loop {
            let mut head = [0u8; 20];
            s.read_exact(&mut head)?;
            let reply = u32::from_be_bytes(head[12..16].try_into().unwrap());
            let len = u32::from_be_bytes(head[16..20].try_into().unwrap()) as usize;
            let mut data = vec![0u8; len];
            s.read_exact(&mut data)?;
            match reply {
                1 => return Ok(Client { s, size_bytes }),
                3 => size_bytes = u64::from_be_bytes(data[2..10].try_into().unwrap()),
                other => {
                    return Err(std::io::Error::other(format!(
                        "option reply {other:#x}: {}",
                        String::from_utf8_lossy(&data)
                    )))
                }
            }
        }
    }

    fn send(&mut self, command: u16, flags: u16, handle: u64, offset: u64, len: u32, data: &[u8]) {
        let mut b = Vec::with_capacity(28 + data.len());
        b.extend_from_slice(&REQUEST_MAGIC.to_be_bytes());
        b.extend_from_slice(&flags.to_be_bytes());
        b.extend_from_slice(&command.to_be_bytes());
        b.extend_from_slice(&handle.to_be_bytes());
        b.extend_from_slice(&offset.to_be_bytes());
        b.extend_from_slice(&len.to_be_bytes());
        b.extend_from_slice(data);
        self.s.write_all(&b).unwrap();
    }

    /// `(errno, handle)` of the next simple reply, reading `data_len` bytes of data after it
    /// when the errno is zero.
    fn reply(&mut self, data_len: usize) -> (u32, u64, Vec<u8>) {
        let mut head = [0u8; 16];
        self.s.read_exact(&mut head).unwrap();
        assert_eq!(
            u32::from_be_bytes(head[0..4].try_into().unwrap()),
            0x6744_6698
        );
        let errno = u32::from_be_bytes(head[4..8].try_into().unwrap());
        let handle = u64::from_be_bytes(head[8..16].try_into().unwrap());
        let mut data = vec![0u8; if errno == 0 { data_len } else { 0 }];
        self.s.read_exact(&mut data).unwrap();
        (errno, handle, data)
    }
}

fn socket(name: &str) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("headway-serve-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    (dir.join("nbd.sock"), dir)
}

fn start(
    path: &PathBuf,
    service_ns: u64,
    max_connections: usize,
    arrivals: Option<PathBuf>,
) -> Server {
    let devices = vec![
        ModelDevice {
            name: "disk0".into(),
            capacity_sectors: 2048,
        },
        ModelDevice {
            name: "disk1".into(),
            capacity_sectors: 4096,
        },
    ];
    let options = ServeOptions {
        listen: Listen::Unix(path.clone()),
        backing: None,
        speed: 1.0,
        max_connections,
        record_arrivals: arrivals,
    };
    Server::start(Box::new(FixedLatency::new(devices, service_ns)), &options).unwrap()
}

#[test]
fn written_data_reads_back_after_the_models_service_time() {
    let (path, dir) = socket("roundtrip");
    let server = start(&path, 2_000_000, 4, None);
    let mut c = Client::connect(&path, "disk1").unwrap();
    assert_eq!(c.size_bytes, 4096 * 512);
    let data: Vec<u8> = (0..8192u32).map(|i| (i * 7) as u8).collect();
    let t = Instant::now();
    c.send(1, 1, 11, 1000, data.len() as u32, &data);
    assert_eq!(c.reply(0).0, 0);
    // Not before the model's 2 ms service time.
    assert!(t.elapsed() >= Duration::from_millis(2), "{:?}", t.elapsed());
    c.send(0, 0, 12, 1000, data.len() as u32, &[]);
    let (errno, handle, back) = c.reply(data.len());
    assert_eq!((errno, handle), (0, 12));
    assert_eq!(back, data);
    // The other export holds its own bytes.
    let mut d0 = Client::connect(&path, "0").unwrap();
    assert_eq!(d0.size_bytes, 2048 * 512);
    d0.send(0, 0, 1, 1000, 16, &[]);
    assert_eq!(d0.reply(16).2, vec![0u8; 16]);
    c.send(2, 0, 0, 0, 0, &[]);
    drop(d0);
    let summary = server.stop().unwrap().summary;
    assert_eq!(summary["requests"], 3);
    assert!(summary["pacing_p99_ms"].as_f64().unwrap() >= 0.0);
    assert_eq!(summary["pacing_replies"], 3);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn requests_past_the_end_and_unknown_commands_are_refused_and_the_connection_kept() {
    let (path, dir) = socket("refuse");
    let server = start(&path, 100_000, 4, None);
    let mut c = Client::connect(&path, "disk0").unwrap();
    c.send(0, 0, 1, 2048 * 512 - 512, 1024, &[]);
    assert_eq!(c.reply(1024).0, EINVAL);
    c.send(1, 0, 2, 2048 * 512, 4, b"abcd");
    assert_eq!(c.reply(0).0, EINVAL);
    c.send(0, 0, 3, 0, (32 << 20) + 1, &[]);
    assert_eq!(c.reply(0).0, EINVAL);
    c.send(77, 0, 4, 0, 0, &[]);
    assert_eq!(c.reply(0).0, EINVAL);
    c.send(3, 0, 5, 0, 0, &[]);
    assert_eq!(c.reply(0), (0, 5, vec![]));
    c.send(0, 0, 6, 0, 512, &[]);
    assert_eq!(c.reply(512).0, 0);
    assert!(Client::connect(&path, "nosuch").is_err());
    let summary = server.stop().unwrap().summary;
    assert_eq!(summary["requests"], 1);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_malformed_frame_closes_only_its_connection() {
    let (path, dir) = socket("malformed");
    let server = start(&path, 100_000, 4, None);
    let mut bad = Client::connect(&path, "disk0").unwrap();
    bad.s.write_all(&[0xde; 28]).unwrap();
    let mut rest = Vec::new();
    assert_eq!(
        bad.s.read_to_end(&mut rest).unwrap(),
        0,
        "closed without a reply"
    );
    let mut good = Client::connect(&path, "disk0").unwrap();
    good.send(0, 0, 9, 0, 512, &[]);
    assert_eq!(good.reply(512).0, 0);
    server.stop().unwrap();
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn connections_beyond_the_maximum_are_refused() {
    let (path, dir) = socket("max");
    let server = start(&path, 100_000, 1, None);
    let mut first = Client::connect(&path, "disk0").unwrap();
    assert!(Client::connect(&path, "disk0").is_err());
    first.send(0, 0, 1, 0, 512, &[]);
    assert_eq!(first.reply(512).0, 0);
    first.send(2, 0, 0, 0, 0, &[]);
    drop(first);
    // Once the first has gone, another is let in.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        match Client::connect(&path, "disk0") {
            Ok(_) => break,
            Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => panic!("{e}"),
        }
    }
    server.stop().unwrap();
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn each_connection_is_its_own_process_in_the_arrivals_file() {
    let (path, dir) = socket("arrivals");
    let arrivals = dir.join("arrivals.fiu");
    let server = start(&path, 1_000_000, 4, Some(arrivals.clone()));
    let mut a = Client::connect(&path, "disk0").unwrap();
    let mut b = Client::connect(&path, "disk1").unwrap();
    // One after the other: sent together, b's read may enter the model before a's write
    // has been read off its socket.
    a.send(1, 0, 1, 4096, 4096, &[1u8; 4096]);
    assert_eq!(a.reply(0).0, 0);
    b.send(0, 0, 2, 513, 1024, &[]);
    assert_eq!(b.reply(1024).0, 0);
    server.stop().unwrap();
    let text = std::fs::read_to_string(&arrivals).unwrap();
    let lines: Vec<Vec<&str>> = text.lines().map(|l| l.split(' ').collect()).collect();
    assert_eq!(lines.len(), 2);
    // ts pid name lba blocks op major minor md5: byte 513 to 1537 is sectors 1 to 3.
    assert_eq!(&lines[0][1..], ["1", "nbd-1", "8", "8", "W", "0", "0", "-"]);
    assert_eq!(&lines[1][1..], ["2", "nbd-2", "1", "3", "R", "0", "1", "-"]);
    let t0: u64 = lines[0][0].parse().unwrap();
    let t1: u64 = lines[1][0].parse().unwrap();
    assert!(t0 <= t1);
    std::fs::remove_dir_all(dir).unwrap();
}
