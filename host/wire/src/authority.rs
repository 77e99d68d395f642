//! Lets gRPC C-core clients (Python `grpcio`, Ruby, PHP, ...) call us in plaintext over a unix
//! socket.
//!
//! Since grpc 1.57 those clients send the percent-encoded socket path as `:authority`
//! (`%2Ftmp%2Fplugin123`), which is not a valid URI authority, and the h2 server under tonic
//! resets every such stream with `PROTOCOL_ERROR` (grpc/grpc#38142, hyperium/h2#487, unmerged).
//! grpc-go, and so Terraform, sends `localhost` for unix sockets. h2 has no switch for this, so
//! [`FixAuthority`] sits between the socket and h2 on plaintext connections. The first header
//! block the client sends decides:
//!
//! - It needs a fix: from then on every header block is re-encoded, with an invalid
//!   `:authority` replaced by `localhost`, and every other frame passed through untouched.
//!   Every block, not only the fixed ones, because HPACK is stateful: the client's blocks
//!   refer to its dynamic table, which h2 only sees rebuilt through our own encoder.
//! - It needs none (grpc-go, tonic, grpcio before 1.57): clients keep one `:authority` per
//!   channel, so that block goes to h2 as the client encoded it (h2's table then follows the
//!   client's) and every later byte passes untouched, nothing decoded (re-encoding every
//!   block cost about a quarter of a small call's server time). A later stream with an
//!   invalid authority on such a connection is reset by h2, as without this module.
//!
//! AutoMTLS connections never need this (clients send the TLS server name) and skip it.

use std::pin::Pin;
use std::task::{Context, Poll, ready};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// What replaces an `:authority` HTTP/2 cannot carry: what grpc-go sends for unix sockets.
const REPLACEMENT: &[u8] = b"localhost";
/// The client connection preface (RFC 9113 §3.4).
const PREFACE_LEN: usize = 24;
const FRAME_HEADER_LEN: usize = 9;
const HEADERS: u8 = 0x1;
const CONTINUATION: u8 = 0x9;
const END_STREAM: u8 = 0x1;
const END_HEADERS: u8 = 0x4;
const PADDED: u8 = 0x8;
const PRIORITY: u8 = 0x20;
/// h2's default `SETTINGS_MAX_FRAME_SIZE`, which we do not change: frames we write stay
/// within it.
const MAX_FRAME: usize = 16_384;
/// h2's default `SETTINGS_HEADER_TABLE_SIZE`: the client's encoder may use at most this much.
const TABLE_SIZE: usize = 4_096;
/// A header block larger than this (over all its frames) ends the connection; h2 would refuse
/// it anyway (its header list limit is 16 KiB of decoded headers by default, as tonic leaves it).
const MAX_BLOCK: usize = 1 << 20;

/// Why a client's byte stream could not be rewritten; the connection is closed.
#[derive(Debug, thiserror::Error)]
enum RewriteError {
    #[error("HTTP/2 header block is not valid HPACK: {0:?}")]
    Hpack(loona_hpack::decoder::DecoderError),
    #[error("HTTP/2 frame sequence is invalid: {0}")]
    Sequence(&'static str),
    #[error("HTTP/2 header block larger than {MAX_BLOCK} bytes")]
    TooLarge,
}

impl From<RewriteError> for std::io::Error {
    fn from(error: RewriteError) -> Self {
        std::io::Error::new(std::io::ErrorKind::InvalidData, error)
    }
}

/// A header block being collected from a HEADERS frame and its CONTINUATIONs.
struct PendingBlock {
    stream_id: u32,
    end_stream: bool,
    priority: Option<[u8; 5]>,
    fragment: Vec<u8>,
}

/// The byte-level rewriter, without IO: bytes from the client go in with [`Rewriter::push`],
/// bytes for h2 come out.
struct Rewriter {
    preface_left: usize,
    /// Payload bytes of the current non-header frame still to pass through.
    passthrough_left: usize,
    pending: Option<PendingBlock>,
    /// Bytes received but not yet a whole frame header or header-frame payload.
    buffered: Vec<u8>,
    decoder: loona_hpack::Decoder<'static>,
    encoder: loona_hpack::Encoder<'static>,
    /// How many `:authority` values were replaced (for the log).
    replaced: u64,
    /// What the first header block decided.
    mode: Mode,
}

/// What a connection's first header block decides (see the module).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// No header block yet.
    Undecided,
    /// The first block needed a fix: every block is re-encoded.
    Rewriting,
    /// The first block needed none: every later byte passes untouched.
    Settled,
}

impl Rewriter {
    fn new() -> Rewriter {
        let mut decoder = loona_hpack::Decoder::new();
        decoder.set_max_allowed_table_size(TABLE_SIZE);
        Rewriter {
            preface_left: PREFACE_LEN,
            passthrough_left: 0,
            pending: None,
            buffered: Vec::new(),
            decoder,
            encoder: loona_hpack::Encoder::new(),
            replaced: 0,
            mode: Mode::Undecided,
        }
    }

    /// Consumes `input`, appending to `out` every byte that is ready for h2.
    fn push(&mut self, mut input: &[u8], out: &mut Vec<u8>) -> Result<(), RewriteError> {
        while !input.is_empty() {
            if self.mode == Mode::Settled {
                out.extend_from_slice(input);
                return Ok(());
            }
            if self.preface_left > 0 {
                let n = self.preface_left.min(input.len());
                out.extend_from_slice(&input[..n]);
                self.preface_left -= n;
                input = &input[n..];
                continue;
            }
            if self.passthrough_left > 0 {
                let n = self.passthrough_left.min(input.len());
                out.extend_from_slice(&input[..n]);
                self.passthrough_left -= n;
                input = &input[n..];
                continue;
            }
            // A frame header, and for header frames the whole payload, is gathered first.
            let needed = if self.buffered.len() < FRAME_HEADER_LEN {
                FRAME_HEADER_LEN
            } else {
                FRAME_HEADER_LEN + frame_len(&self.buffered)
            };
            let n = (needed - self.buffered.len()).min(input.len());
            self.buffered.extend_from_slice(&input[..n]);
            input = &input[n..];
            if self.buffered.len() < needed {
                continue;
            }
            let kind = self.buffered[3];
            let is_header_frame = kind == HEADERS || kind == CONTINUATION;
            if needed == FRAME_HEADER_LEN && !is_header_frame {
                if self.pending.is_some() {
                    return Err(RewriteError::Sequence(
                        "a frame other than CONTINUATION inside a header block",
                    ));
                }
                out.extend_from_slice(&self.buffered);
                self.passthrough_left = frame_len(&self.buffered);
                self.buffered.clear();
                continue;
            }
            if needed == FRAME_HEADER_LEN && frame_len(&self.buffered) > 0 {
                // Header frame: wait for its payload.
                continue;
            }
            let frame = std::mem::take(&mut self.buffered);
            self.header_frame(&frame, out)?;
        }
        Ok(())
    }

    /// A whole HEADERS or CONTINUATION frame.
    fn header_frame(&mut self, frame: &[u8], out: &mut Vec<u8>) -> Result<(), RewriteError> {
        let (kind, flags) = (frame[3], frame[4]);
        let stream_id = u32::from_be_bytes([frame[5], frame[6], frame[7], frame[8]]) & 0x7fff_ffff;
        let mut payload = &frame[FRAME_HEADER_LEN..];
        if kind == HEADERS {
            if self.pending.is_some() {
                return Err(RewriteError::Sequence("HEADERS inside a header block"));
            }
            if flags & PADDED != 0 {
                let (&pad, rest) = payload.split_first().ok_or(RewriteError::Sequence(
                    "PADDED HEADERS without a pad length",
                ))?;
                let keep =
                    rest.len()
                        .checked_sub(usize::from(pad))
                        .ok_or(RewriteError::Sequence(
                            "HEADERS padding longer than the frame",
                        ))?;
                payload = &rest[..keep];
            }
            let mut priority = None;
            if flags & PRIORITY != 0 {
                let (head, rest) = payload
                    .split_at_checked(5)
                    .ok_or(RewriteError::Sequence("HEADERS priority field truncated"))?;
                priority = Some(head.try_into().expect("five bytes"));
                payload = rest;
            }
            self.pending = Some(PendingBlock {
                stream_id,
                end_stream: flags & END_STREAM != 0,
                priority,
                fragment: Vec::new(),
            });
        }
        let block = self.pending.as_mut().ok_or(RewriteError::Sequence(
            "CONTINUATION outside a header block",
        ))?;
        if block.stream_id != stream_id {
            return Err(RewriteError::Sequence("CONTINUATION for another stream"));
        }
        if block.fragment.len() + payload.len() > MAX_BLOCK {
            return Err(RewriteError::TooLarge);
        }
        block.fragment.extend_from_slice(payload);
        if flags & END_HEADERS != 0 {
            let block = self.pending.take().expect("pending block");
            self.rewrite_block(&block, out)?;
        }
        Ok(())
    }

    /// Decodes a complete header block, fixes `:authority`, and writes it re-encoded as one
    /// HEADERS frame and as many CONTINUATIONs as the frame size needs. A first block that
    /// needs no fix is written as the client encoded it, and the connection settles.
    fn rewrite_block(
        &mut self,
        block: &PendingBlock,
        out: &mut Vec<u8>,
    ) -> Result<(), RewriteError> {
        let mut headers = self
            .decoder
            .decode(&block.fragment)
            .map_err(RewriteError::Hpack)?;
        let replaced_before = self.replaced;
        for (name, value) in &mut headers {
            if name.as_slice() == b":authority"
                && http::uri::Authority::try_from(value.as_slice()).is_err()
            {
                *value = REPLACEMENT.to_vec();
                self.replaced += 1;
            }
        }
        let mut encoded = Vec::with_capacity(block.fragment.len() + 16);
        if let Some(priority) = block.priority {
            encoded.extend_from_slice(&priority);
        }
        if self.mode == Mode::Undecided && self.replaced == replaced_before {
            encoded.extend_from_slice(&block.fragment);
            self.mode = Mode::Settled;
        } else {
            self.mode = Mode::Rewriting;
            encoded.extend(
                self.encoder
                    .encode(headers.iter().map(|(n, v)| (n.as_slice(), v.as_slice()))),
            );
        }
        let mut chunks = encoded.chunks(MAX_FRAME).peekable();
        let mut first = true;
        // An empty block still needs its HEADERS frame.
        let empty: &[u8] = &[];
        let mut next = chunks.next().unwrap_or(empty);
        loop {
            let last = chunks.peek().is_none();
            let (kind, mut flags) = if first {
                let mut flags = 0;
                if block.end_stream {
                    flags |= END_STREAM;
                }
                if block.priority.is_some() {
                    flags |= PRIORITY;
                }
                (HEADERS, flags)
            } else {
                (CONTINUATION, 0)
            };
            if last {
                flags |= END_HEADERS;
            }
            write_frame(out, kind, flags, block.stream_id, next);
            first = false;
            match chunks.next() {
                Some(chunk) => next = chunk,
                None => break,
            }
        }
        Ok(())
    }
}

fn frame_len(header: &[u8]) -> usize {
    usize::from(header[0]) << 16 | usize::from(header[1]) << 8 | usize::from(header[2])
}

fn write_frame(out: &mut Vec<u8>, kind: u8, flags: u8, stream_id: u32, payload: &[u8]) {
    let len = u32::try_from(payload.len()).expect("chunks are at most MAX_FRAME");
    out.extend_from_slice(&len.to_be_bytes()[1..]);
    out.push(kind);
    out.push(flags);
    out.extend_from_slice(&stream_id.to_be_bytes());
    out.extend_from_slice(payload);
}

/// A plaintext connection whose client header blocks are rewritten as the module explains.
pub(crate) struct FixAuthority<S> {
    inner: S,
    rewriter: Rewriter,
    /// Rewritten bytes not yet handed to h2.
    ready: Vec<u8>,
    ready_from: usize,
    scratch: Box<[u8]>,
}

impl<S> FixAuthority<S> {
    pub(crate) fn new(inner: S) -> FixAuthority<S> {
        FixAuthority {
            inner,
            rewriter: Rewriter::new(),
            ready: Vec::new(),
            ready_from: 0,
            scratch: vec![0; 16 * 1024].into_boxed_slice(),
        }
    }
}

impl<S> Drop for FixAuthority<S> {
    fn drop(&mut self) {
        if self.rewriter.replaced > 0 {
            tracing::debug!(
                streams = self.rewriter.replaced,
                "replaced a client's invalid :authority (a socket path) with localhost"
            );
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for FixAuthority<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        loop {
            if this.ready_from < this.ready.len() {
                let n = buf.remaining().min(this.ready.len() - this.ready_from);
                buf.put_slice(&this.ready[this.ready_from..this.ready_from + n]);
                this.ready_from += n;
                if this.ready_from == this.ready.len() {
                    this.ready.clear();
                    this.ready_from = 0;
                }
                return Poll::Ready(Ok(()));
            }
            let mut read = ReadBuf::new(&mut this.scratch);
            ready!(Pin::new(&mut this.inner).poll_read(cx, &mut read))?;
            let filled = read.filled();
            if filled.is_empty() {
                // End of stream: a frame cut short is h2's to report.
                return Poll::Ready(Ok(()));
            }
            this.rewriter.push(filled, &mut this.ready)?;
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for FixAuthority<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }
    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

    /// The frames of `bytes` (after the preface): (kind, flags, stream, payload).
    fn frames(mut bytes: &[u8]) -> Vec<(u8, u8, u32, Vec<u8>)> {
        assert_eq!(&bytes[..PREFACE_LEN], PREFACE);
        bytes = &bytes[PREFACE_LEN..];
        let mut out = Vec::new();
        while !bytes.is_empty() {
            let len = frame_len(bytes);
            let stream = u32::from_be_bytes([bytes[5], bytes[6], bytes[7], bytes[8]]);
            out.push((bytes[3], bytes[4], stream, bytes[9..9 + len].to_vec()));
            bytes = &bytes[9 + len..];
        }
        out
    }

    fn client_bytes(authority: &str) -> Vec<u8> {
        let mut client = loona_hpack::Encoder::new();
        let headers = |authority: &str| {
            vec![
                (b":method".to_vec(), b"POST".to_vec()),
                (b":scheme".to_vec(), b"http".to_vec()),
                (
                    b":path".to_vec(),
                    b"/tfplugin6.Provider/GetProviderSchema".to_vec(),
                ),
                (b":authority".to_vec(), authority.as_bytes().to_vec()),
                (b"te".to_vec(), b"trailers".to_vec()),
            ]
        };
        let mut bytes = PREFACE.to_vec();
        write_frame(&mut bytes, 0x4, 0, 0, &[0, 3, 0, 0, 0, 100]); // SETTINGS
        let h = headers(authority);
        let block = client.encode(h.iter().map(|(n, v)| (&n[..], &v[..])));
        // Stream 1: padded HEADERS split over a CONTINUATION, then DATA.
        let (a, b) = block.split_at(block.len() / 2);
        let mut padded = vec![3];
        padded.extend_from_slice(a);
        padded.extend_from_slice(&[0, 0, 0]);
        write_frame(&mut bytes, HEADERS, PADDED, 1, &padded);
        write_frame(&mut bytes, CONTINUATION, END_HEADERS, 1, b);
        write_frame(&mut bytes, 0x0, END_STREAM, 1, &[0, 0, 0, 0, 0]);
        // Stream 3: the same headers again, now indexed from the client's dynamic table.
        let block = client.encode(h.iter().map(|(n, v)| (&n[..], &v[..])));
        write_frame(&mut bytes, HEADERS, END_HEADERS | END_STREAM, 3, &block);
        bytes
    }

    fn rewrite_in_chunks(input: &[u8], chunk: usize) -> (Vec<u8>, u64) {
        let mut rewriter = Rewriter::new();
        let mut out = Vec::new();
        for piece in input.chunks(chunk) {
            rewriter.push(piece, &mut out).expect("valid input");
        }
        (out, rewriter.replaced)
    }

    fn authorities(output: &[u8]) -> Vec<Vec<u8>> {
        let mut server = loona_hpack::Decoder::new();
        frames(output)
            .into_iter()
            .filter(|f| f.0 == HEADERS)
            .map(|(_, flags, _, payload)| {
                assert_ne!(flags & END_HEADERS, 0, "one frame per small block");
                assert_eq!(flags & PADDED, 0, "padding is dropped");
                let headers = server
                    .decode(&payload)
                    .expect("server decodes our encoding");
                assert_eq!(headers.len(), 5, "every other header kept: {headers:?}");
                headers
                    .into_iter()
                    .find(|(n, _)| n == b":authority")
                    .expect(":authority kept")
                    .1
            })
            .collect()
    }

    #[test]
    fn a_socket_path_authority_becomes_localhost_in_every_block() {
        let input = client_bytes("%2Ftmp%2Fplugin123");
        let (out, replaced) = rewrite_in_chunks(&input, usize::MAX);
        assert_eq!(replaced, 2);
        assert_eq!(authorities(&out), vec![b"localhost".to_vec(); 2]);
        let kinds: Vec<(u8, u8, u32)> = frames(&out).iter().map(|f| (f.0, f.1, f.2)).collect();
        assert_eq!(
            kinds,
            [
                (0x4, 0, 0),
                (HEADERS, END_HEADERS, 1),
                (0x0, END_STREAM, 1),
                (HEADERS, END_HEADERS | END_STREAM, 3)
            ]
        );
        assert_eq!(frames(&out)[2].3, [0, 0, 0, 0, 0], "DATA passes through");
    }

    #[test]
    fn a_valid_authority_is_kept_and_chunking_does_not_matter() {
        let input = client_bytes("localhost:1234");
        let (whole, replaced) = rewrite_in_chunks(&input, usize::MAX);
        assert_eq!(replaced, 0);
        assert_eq!(authorities(&whole), vec![b"localhost:1234".to_vec(); 2]);
        for chunk in [1, 2, 7, 9, 10, 33] {
            assert_eq!(
                rewrite_in_chunks(&input, chunk).0,
                whole,
                "chunks of {chunk}"
            );
        }
    }

    #[test]
    fn after_a_first_block_needing_no_fix_the_connection_passes_through() {
        let input = client_bytes("localhost:1234");
        let (out, _) = rewrite_in_chunks(&input, usize::MAX);
        // The first block arrives as one frame (its padding dropped); every frame after it is
        // the client's own, byte for byte, including the block indexed from its table.
        let (sent, passed) = (frames(&input), frames(&out));
        assert_eq!(passed.len(), sent.len() - 1);
        assert_eq!(passed[2..], sent[3..]);
        // A later socket-path authority on the same connection is not looked at: h2 refuses
        // that stream as it would without the fix (clients keep one authority per channel).
        let mut later = input.clone();
        let mut client = loona_hpack::Encoder::new();
        let block = client.encode([(&b":authority"[..], &b"%2Ftmp%2Fx"[..])]);
        write_frame(&mut later, HEADERS, END_HEADERS, 5, &block);
        let (out, replaced) = rewrite_in_chunks(&later, 7);
        assert_eq!(replaced, 0);
        assert!(out.ends_with(&block), "passed through untouched");
    }

    /// `:method: POST` indexed, then `:authority: localhost:1234` as a literal added to the
    /// dynamic table: a valid block our own encoder, which adds nothing to it, does not write.
    fn literal_block() -> Vec<u8> {
        let mut block = vec![0x83, 0x41, 14];
        block.extend_from_slice(b"localhost:1234");
        block
    }

    #[test]
    fn the_first_block_decides_whether_later_ones_are_rewritten() {
        // It needs no fix: it and every later block reach h2 exactly as the client encoded them.
        let mut input = PREFACE.to_vec();
        for stream in [1, 3] {
            write_frame(
                &mut input,
                HEADERS,
                END_HEADERS | END_STREAM,
                stream,
                &literal_block(),
            );
        }
        let (out, _) = rewrite_in_chunks(&input, 5);
        assert_eq!(out, input);
        // It needed one: a later block that needs none is still re-encoded (our encoder's
        // table is the one h2 follows now), and still says what the client said.
        let mut client = loona_hpack::Encoder::new();
        let fixed = client.encode([(&b":authority"[..], &b"%2Ftmp%2Fx"[..])]);
        let mut input = PREFACE.to_vec();
        write_frame(&mut input, HEADERS, END_HEADERS, 1, &fixed);
        write_frame(
            &mut input,
            HEADERS,
            END_HEADERS | END_STREAM,
            3,
            &literal_block(),
        );
        let (out, replaced) = rewrite_in_chunks(&input, 5);
        assert_eq!(replaced, 1);
        let frames = frames(&out);
        assert_ne!(frames[1].3, literal_block(), "re-encoded");
        let mut server = loona_hpack::Decoder::new();
        let first = server.decode(&frames[0].3).unwrap();
        assert_eq!(first[0].1, b"localhost");
        let second = server.decode(&frames[1].3).unwrap();
        assert_eq!(
            second[1],
            (b":authority".to_vec(), b"localhost:1234".to_vec())
        );
    }

    #[test]
    fn a_large_block_is_split_into_continuations() {
        let mut client = loona_hpack::Encoder::new();
        let big = vec![b'x'; 40_000];
        let block = client.encode([(&b":authority"[..], &b"a b"[..]), (b"x-big", &big[..])]);
        let mut input = PREFACE.to_vec();
        let (a, b) = block.split_at(20_000);
        write_frame(&mut input, HEADERS, 0, 1, a);
        write_frame(&mut input, CONTINUATION, END_HEADERS, 1, b);
        let (out, replaced) = rewrite_in_chunks(&input, 4096);
        assert_eq!(replaced, 1);
        let frames = frames(&out);
        assert!(frames.len() >= 3);
        assert!(frames.iter().all(|f| f.3.len() <= MAX_FRAME));
        assert_eq!(frames.last().unwrap().1 & END_HEADERS, END_HEADERS);
        let block: Vec<u8> = frames.iter().flat_map(|f| f.3.clone()).collect();
        let headers = loona_hpack::Decoder::new().decode(&block).unwrap();
        assert_eq!(headers[0].1, b"localhost");
        assert_eq!(headers[1].1, big);
    }

    #[test]
    fn broken_input_is_an_error_not_a_panic() {
        let mut cases: Vec<Vec<u8>> = Vec::new();
        let mut input = PREFACE.to_vec();
        write_frame(&mut input, CONTINUATION, END_HEADERS, 1, b"x");
        cases.push(input);
        let mut input = PREFACE.to_vec();
        write_frame(&mut input, HEADERS, PADDED | END_HEADERS, 1, &[200, 1, 2]);
        cases.push(input);
        let mut input = PREFACE.to_vec();
        write_frame(
            &mut input,
            HEADERS,
            END_HEADERS,
            1,
            &[0xff, 0xff, 0xff, 0xff],
        );
        cases.push(input);
        let mut input = PREFACE.to_vec();
        write_frame(&mut input, HEADERS, 0, 1, &[0x82]);
        write_frame(&mut input, 0x0, 0, 1, b"data");
        cases.push(input);
        for case in cases {
            let mut out = Vec::new();
            assert!(Rewriter::new().push(&case, &mut out).is_err(), "{case:?}");
        }
    }
}
