//! The fake Slack's listener, which can stop: closing it refuses new connections at
//! once and cuts the open ones, so the bot sees Slack go away as it would in an outage
//! (see `FakeSlack::go_away`).

use super::*;

/// A listener whose connections are cut when the fake stops or goes away. The listener
/// itself sits behind a lock shared with [`Serving`], which takes it out (closing it) to
/// go away; from then on `accept` waits forever (and its task is aborted).
pub(super) struct StopListener {
    pub(super) inner: Arc<Mutex<Option<TcpListener>>>,
    pub(super) addr: SocketAddr,
    pub(super) stop: watch::Receiver<()>,
}

impl axum::serve::Listener for StopListener {
    type Io = StopIo;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (StopIo, SocketAddr) {
        loop {
            let accepted = std::future::poll_fn(|cx| {
                let listener = self
                    .inner
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner());
                match listener.as_ref() {
                    Some(listener) => listener.poll_accept(cx).map(Some),
                    None => Poll::Ready(None),
                }
            })
            .await;
            match accepted {
                Some(Ok((stream, addr))) => {
                    let _ = stream.set_nodelay(true);
                    return (StopIo::new(stream, self.stop.clone()), addr);
                }
                Some(Err(_)) => tokio::time::sleep(Duration::from_millis(10)).await,
                None => std::future::pending::<()>().await,
            }
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        Ok(self.addr)
    }
}

/// A TCP stream that fails every read and write once the fake stops, so the
/// connection task (and any request it holds) ends.
pub(super) struct StopIo {
    stream: TcpStream,
    stop: Pin<Box<dyn Future<Output = ()> + Send>>,
    stopped: bool,
}

impl StopIo {
    fn new(stream: TcpStream, mut stop: watch::Receiver<()>) -> StopIo {
        StopIo {
            stream,
            stop: Box::pin(async move { while stop.changed().await.is_ok() {} }),
            stopped: false,
        }
    }

    fn poll_stopped(&mut self, cx: &mut Context<'_>) -> bool {
        if !self.stopped && self.stop.as_mut().poll(cx).is_ready() {
            self.stopped = true;
        }
        self.stopped
    }
}

fn stopped_error() -> io::Error {
    io::Error::new(io::ErrorKind::ConnectionAborted, "fake Slack stopped")
}

impl AsyncRead for StopIo {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.poll_stopped(cx) {
            return Poll::Ready(Err(stopped_error()));
        }
        Pin::new(&mut this.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for StopIo {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if this.poll_stopped(cx) {
            return Poll::Ready(Err(stopped_error()));
        }
        Pin::new(&mut this.stream).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.poll_stopped(cx) {
            return Poll::Ready(Err(stopped_error()));
        }
        Pin::new(&mut this.stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}
