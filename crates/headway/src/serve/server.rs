//! The listening socket and the server's lifetime: connections accepted up to the maximum,
//! each served by its own threads, the engine on another; stopping ends them all and
//! gathers the summary.

use std::collections::HashMap;
use std::net::TcpListener;
use std::os::unix::net::UnixListener;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::backing::Backing;
use super::model::ServeModel;
use super::nbd::Export;
use super::pacing::Clock;
use super::shared::Shared;
use super::stream::Stream;
use super::{connection, engine, log};
use crate::error::{HeadwayError, Result};
use crate::stats::RequestRecords;

const SECTOR_BYTES: u64 = 512;

/// Where the server listens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Listen {
    Unix(PathBuf),
    /// `host:port`; the CLI binds 127.0.0.1 unless another address is named.
    Tcp(String),
}

#[derive(Clone, Debug)]
pub struct ServeOptions {
    pub listen: Listen,
    /// A sparse file holding the exports' data; memory when `None`.
    pub backing: Option<PathBuf>,
    /// Simulated time runs this many times as fast as the wall clock.
    pub speed: f64,
    pub max_connections: usize,
    /// Writes every request entering the model as an FIU trace line.
    pub record_arrivals: Option<PathBuf>,
}

/// A snapshot for the progress line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    pub completed: u64,
    pub mean_response_ms: f64,
    /// Requests in the model, not yet completed.
    pub queue_depth: usize,
    pub connections: usize,
    /// Simulated time reached.
    pub now_ns: u64,
}

/// What a stopped server hands back.
pub struct Stopped {
    pub summary: serde_json::Value,
    pub records: Option<RequestRecords>,
}

impl Listen {
    /// `unix:PATH` or `tcp:HOST:PORT` (`tcp:PORT` binds 127.0.0.1), as `--nbd` takes it.
    pub fn parse(text: &str) -> Result<Listen> {
        let bad = |why: &str| {
            HeadwayError::config(
                "nbd",
                format!("`{text}`: {why}; expected unix:PATH or tcp:HOST:PORT"),
            )
        };
        if let Some(path) = text.strip_prefix("unix:") {
            if path.is_empty() {
                return Err(bad("no socket path"));
            }
            return Ok(Listen::Unix(PathBuf::from(path)));
        }
        let Some(addr) = text.strip_prefix("tcp:") else {
            return Err(bad("unknown transport"));
        };
        let (host, port) = match addr.rsplit_once(':') {
            Some((host, port)) => (host, port),
            None => ("127.0.0.1", addr),
        };
        if port.parse::<u16>().is_err() {
            return Err(bad("the port is not a number from 0 to 65535"));
        }
        let host = if host.is_empty() { "127.0.0.1" } else { host };
        Ok(Listen::Tcp(format!("{host}:{port}")))
    }
}

enum Listener {
    Unix(UnixListener),
    Tcp(TcpListener),
}

type Open = Arc<Mutex<HashMap<u32, Stream>>>;

/// A running server.
pub struct Server {
    shared: Arc<Shared>,
    open: Open,
    address: String,
    threads: Vec<JoinHandle<()>>,
    socket_path: Option<PathBuf>,
}

impl Server {
    pub fn start(model: Box<dyn ServeModel>, options: &ServeOptions) -> Result<Server> {
        let clock = Clock::new(options.speed)?;
        if options.max_connections == 0 {
            return Err(HeadwayError::config(
                "max_connections",
                "must be at least 1",
            ));
        }
        let exports: Vec<Export> = model
            .devices()
            .into_iter()
            .map(|d| Export {
                name: d.name,
                size_bytes: d.capacity_sectors * SECTOR_BYTES,
            })
            .collect();
        let sizes: Vec<u64> = exports.iter().map(|e| e.size_bytes).collect();
        let backing = match &options.backing {
            Some(path) => Backing::file(path, &sizes)?,
            None => Backing::memory(&sizes),
        };
        let (listener, address, socket_path) = bind(&options.listen)?;
        let shared = Arc::new(Shared::new(
            model,
            clock,
            backing,
            exports,
            options.record_arrivals.clone(),
        )?);
        let open: Open = Arc::default();
        let mut threads = Vec::new();
        {
            let shared = shared.clone();
            threads.push(std::thread::spawn(move || engine::run(&shared)));
        }
        {
            let shared = shared.clone();
            let open = open.clone();
            let max = options.max_connections;
            threads.push(std::thread::spawn(move || {
                accept(&shared, listener, &open, max)
            }));
        }
        Ok(Server {
            shared,
            open,
            address,
            threads,
            socket_path,
        })
    }

    /// `unix:PATH` or `tcp:HOST:PORT`, the port the system picked when 0 was asked for.
    pub fn address(&self) -> &str {
        &self.address
    }

    /// Whether the server has stopped by itself (the model failed).
    pub fn failed(&self) -> bool {
        self.shared.stopping()
    }

    pub fn progress(&self) -> Progress {
        let connections = self.open.lock().unwrap_or_else(|p| p.into_inner()).len();
        let core = self.shared.core();
        Progress {
            completed: core.completed,
            mean_response_ms: if core.completed == 0 {
                0.0
            } else {
                core.response_ns_total as f64 / core.completed as f64 / 1e6
            },
            queue_depth: core.pending.len(),
            connections,
            now_ns: core.now_ns,
        }
    }

    /// Stops serving (every connection closed, replies not yet due dropped) and returns the
    /// model's summary with the pacing error added (`pacing_p50_ms`, `pacing_p99_ms`,
    /// `pacing_max_ms`, null when no reply was timed; `pacing_replies`, how many were),
    /// and the model's records.
    pub fn stop(mut self) -> Result<Stopped> {
        self.shared.stop();
        for s in self.open.lock().unwrap_or_else(|p| p.into_inner()).values() {
            s.shutdown();
        }
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
        // Connection threads end once their sockets are shut; wait for them briefly.
        let deadline = Instant::now() + Duration::from_secs(5);
        while !self
            .open
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_empty()
            && Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_millis(5));
        }
        if let Some(p) = self.socket_path.take() {
            let _ = std::fs::remove_file(p);
        }
        let mut core = self.shared.core();
        if let Some(e) = core.failure.take() {
            return Err(e);
        }
        core.finish_arrivals()?;
        let mut summary = core.model.summary()?;
        let mut pacing = self
            .shared
            .pacing_error
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        pacing.merge(&core.engine_pacing_error);
        let (p50, p99, max) = match pacing.percentiles_ms() {
            Some((a, b, c)) => (a.into(), b.into(), c.into()),
            None => (
                serde_json::Value::Null,
                serde_json::Value::Null,
                serde_json::Value::Null,
            ),
        };
        if let Some(obj) = summary.as_object_mut() {
            obj.insert("pacing_p50_ms".into(), p50);
            obj.insert("pacing_p99_ms".into(), p99);
            obj.insert("pacing_max_ms".into(), max);
            obj.insert("pacing_replies".into(), pacing.count().into());
        }
        Ok(Stopped {
            summary,
            records: core.model.records(),
        })
    }
}

fn bind(listen: &Listen) -> Result<(Listener, String, Option<PathBuf>)> {
    match listen {
        Listen::Unix(path) => {
            remove_stale_socket(path)?;
            let l = UnixListener::bind(path).map_err(|e| HeadwayError::io(path, e))?;
            l.set_nonblocking(true)
                .map_err(|e| HeadwayError::io(path, e))?;
            Ok((
                Listener::Unix(l),
                format!("unix:{}", path.display()),
                Some(path.clone()),
            ))
        }
        Listen::Tcp(addr) => {
            let l = TcpListener::bind(addr).map_err(|e| HeadwayError::io(addr, e))?;
            l.set_nonblocking(true)
                .map_err(|e| HeadwayError::io(addr, e))?;
            let local = l.local_addr().map_err(|e| HeadwayError::io(addr, e))?;
            Ok((Listener::Tcp(l), format!("tcp:{local}"), None))
        }
    }
}

/// A socket file no server answers on (one killed, say) is removed, so that a restart can
/// bind; one a server answers on is an error naming the path.
fn remove_stale_socket(path: &std::path::Path) -> Result<()> {
    use std::os::unix::fs::FileTypeExt;
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return Ok(());
    };
    if !meta.file_type().is_socket() {
        return Ok(()); // bind reports it, naming the path
    }
    match std::os::unix::net::UnixStream::connect(path) {
        Ok(_) => Err(HeadwayError::io(
            path,
            std::io::Error::new(
                std::io::ErrorKind::AddrInUse,
                "another server is listening on this socket",
            ),
        )),
        Err(_) => std::fs::remove_file(path).map_err(|e| HeadwayError::io(path, e)),
    }
}

/// How often the listener looks for a new client (it polls, so that it notices a stop).
const ACCEPT_POLL: Duration = Duration::from_millis(5);

fn accept(shared: &Arc<Shared>, listener: Listener, open: &Open, max_connections: usize) {
    let mut next_process = 1u32;
    while !shared.stopping() {
        let accepted = match &listener {
            Listener::Unix(l) => l.accept().map(|(s, _)| Stream::Unix(s)),
            Listener::Tcp(l) => l.accept().map(|(s, _)| {
                let _ = s.set_nodelay(true);
                Stream::Tcp(s)
            }),
        };
        let stream = match accepted {
            Ok(s) => s,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(ACCEPT_POLL);
                continue;
            }
            Err(e) => {
                log(&format!("accepting a connection: {e}"));
                std::thread::sleep(ACCEPT_POLL);
                continue;
            }
        };
        let set_blocking = match &stream {
            Stream::Unix(s) => s.set_nonblocking(false),
            Stream::Tcp(s) => s.set_nonblocking(false),
        };
        let mut table = open.lock().unwrap_or_else(|p| p.into_inner());
        if set_blocking.is_err() || table.len() >= max_connections {
            log(&format!(
                "refusing a connection: {} open, the maximum (--max-connections {max_connections})",
                table.len()
            ));
            stream.shutdown();
            continue;
        }
        let process = next_process;
        next_process += 1;
        let Ok(handle) = stream.try_clone() else {
            continue;
        };
        table.insert(process, handle);
        drop(table);
        let shared = shared.clone();
        let open = open.clone();
        std::thread::spawn(move || {
            connection::serve(shared, stream, process);
            open.lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&process);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listen_addresses_default_to_loopback_and_bad_ones_name_the_key() {
        assert_eq!(
            Listen::parse("unix:/tmp/x.sock").unwrap(),
            Listen::Unix("/tmp/x.sock".into())
        );
        assert_eq!(
            Listen::parse("tcp:10809").unwrap(),
            Listen::Tcp("127.0.0.1:10809".into())
        );
        assert_eq!(
            Listen::parse("tcp::10809").unwrap(),
            Listen::Tcp("127.0.0.1:10809".into())
        );
        assert_eq!(
            Listen::parse("tcp:0.0.0.0:1").unwrap(),
            Listen::Tcp("0.0.0.0:1".into())
        );
        for bad in ["unix:", "tcp:host:port", "tcp:99999", "http://x"] {
            let e = Listen::parse(bad).unwrap_err().to_string();
            assert!(e.contains("key `nbd`") && e.contains(bad), "{e}");
        }
    }
}
