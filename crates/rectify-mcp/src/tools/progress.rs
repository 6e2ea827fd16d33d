//! Progress notifications: long work (a run, an ask) says what it does, one message per
//! event, when the client asked for progress (a progress token in the request).

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::{Peer, RoleServer};
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// Sends progress messages to the client, in order, from any thread.
#[derive(Debug)]
pub struct Reporter {
    sender: Option<UnboundedSender<Message>>,
    task: Option<JoinHandle<()>>,
}

impl Reporter {
    /// A reporter for the request whose progress token is `token` (none: it says nothing).
    pub fn new(peer: Peer<RoleServer>, token: Option<ProgressToken>) -> Reporter {
        let Some(token) = token else {
            return Reporter {
                sender: None,
                task: None,
            };
        };
        let (sender, mut messages) = unbounded_channel::<Message>();
        let task = tokio::spawn(async move {
            let mut done = 0.0;
            while let Some(message) = messages.recv().await {
                match message {
                    Message::Say(text) => {
                        done += 1.0;
                        let param =
                            ProgressNotificationParam::new(token.clone(), done).with_message(text);
                        // A client that went away stops nothing: the work goes on.
                        let _ = peer.notify_progress(param).await;
                    }
                    Message::Flush(sent) => {
                        let _ = sent.send(());
                    }
                }
            }
        });
        Reporter {
            sender: Some(sender),
            task: Some(task),
        }
    }

    /// A function that sends one message (`None` when the client asked for no progress).
    pub fn callback(&self) -> Option<impl Fn(String) + Send + Sync + 'static> {
        let sender = self.sender.clone()?;
        Some(move |message: String| {
            let _ = sender.send(Message::Say(message));
        })
    }

    /// Waits until every message sent so far has gone out (before the result does).
    pub async fn finish(self) {
        if let Some(sender) = &self.sender {
            let (sent, flushed) = oneshot::channel();
            if sender.send(Message::Flush(sent)).is_ok() {
                let _ = flushed.await;
            }
        }
    }
}

impl Drop for Reporter {
    fn drop(&mut self) {
        // Callbacks still held by work that outlives the request keep the channel open.
        if let Some(task) = &self.task {
            task.abort();
        }
    }
}

/// What the sending task is told.
#[derive(Debug)]
enum Message {
    /// A progress message.
    Say(String),
    /// Everything before this has been sent: answer.
    Flush(oneshot::Sender<()>),
}
