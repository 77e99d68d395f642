//! TCP_NODELAY for tf-provider's accepted sockets, without patching the crate.
//!
//! tf-provider binds its own listener and never sets TCP_NODELAY, so small gRPC messages
//! wait on Nagle plus delayed ACK (~40 ms at start and shutdown). On Linux an accepted
//! socket inherits TCP_NODELAY from its listener, and Terraform connects only after it has
//! read the handshake line from stdout. So stdout goes through a pipe: when the handshake
//! line arrives, every listening TCP socket of this process gets TCP_NODELAY, and only then
//! is the line passed on to the real stdout.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::FromRawFd;

/// Redirects stdout through the pipe described above. Call before serving.
pub fn on_announced_listener() -> std::io::Result<()> {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe(2) writes.
    if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: dup/dup2 on descriptors this process owns; the duplicate of the original
    // stdout is owned by `real_stdout` from here on.
    let real_stdout = unsafe {
        let saved = libc::dup(1);
        if saved < 0 || libc::dup2(fds[1], 1) < 0 {
            return Err(std::io::Error::last_os_error());
        }
        libc::close(fds[1]);
        File::from_raw_fd(saved)
    };
    // SAFETY: the read end is ours alone.
    let pipe = unsafe { File::from_raw_fd(fds[0]) };
    std::thread::spawn(move || forward(pipe, real_stdout));
    Ok(())
}

fn forward(pipe: File, mut out: File) {
    let mut reader = BufReader::new(pipe);
    let mut line = String::new();
    if reader.read_line(&mut line).is_ok() {
        set_nodelay_on_listeners();
        let _ = out.write_all(line.as_bytes());
    }
    let _ = std::io::copy(&mut reader, &mut out);
}

fn set_nodelay_on_listeners() {
    let Ok(entries) = std::fs::read_dir("/proc/self/fd") else {
        return;
    };
    for entry in entries.flatten() {
        let Some(fd) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        let is_socket = std::fs::read_link(entry.path())
            .is_ok_and(|target| target.to_string_lossy().starts_with("socket:"));
        if is_socket && is_listening(fd) {
            let one: libc::c_int = 1;
            // SAFETY: setsockopt on an open socket descriptor with a c_int option value.
            unsafe {
                libc::setsockopt(
                    fd,
                    libc::IPPROTO_TCP,
                    libc::TCP_NODELAY,
                    (&one as *const libc::c_int).cast(),
                    size_of::<libc::c_int>() as libc::socklen_t,
                );
            }
        }
    }
}

fn is_listening(fd: i32) -> bool {
    let mut value: libc::c_int = 0;
    let mut len = size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: getsockopt writes at most `len` bytes into `value`.
    let rc = unsafe {
        libc::getsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_ACCEPTCONN,
            (&mut value as *mut libc::c_int).cast(),
            &mut len,
        )
    };
    rc == 0 && value == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listeners_get_nodelay_and_accepted_sockets_inherit_it() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        set_nodelay_on_listeners();
        let _client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (accepted, _) = listener.accept().unwrap();
        assert!(accepted.nodelay().unwrap());
    }
}
