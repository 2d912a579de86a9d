//! The registry of a page's reads: the one [`Client`] every read on the page shares, who
//! carries out each read's steps, and what the page's events are carried out on (its clock,
//! its one timer, the other tabs: a [`Host`]). Every rule of how reads and their ledger meet
//! is the core's; this file carries the client's events to where they go, in order.
//!
//! A read is forgotten by the page once nothing carries out its steps (no screen's read owns
//! it, and no fetch of it is under way): the next input to the page leaves it, if it still
//! runs, and removes it from the client. No destructor drives the page.

use std::cell::RefCell;
use std::rc::{Rc, Weak};
use std::time::Duration;

use retry_budget::policy::PolicyError;
use retry_budget::scope::ScopeBlock;
use retry_budget::wire::TabMessage;
use retry_budget::{Client, ClientEvent, ReadId, Step};

/// What a page runs on: its clock, its one timer, and its channel to the other tabs.
pub(crate) trait Host {
    /// The page's monotonic clock.
    fn now(&self) -> Duration;
    /// Arms the page's one timer for `deadline`, replacing the one armed before; `None`
    /// clears it. When it fires, the page is given [`Client::handle_timeout`].
    fn arm(&self, deadline: Option<Duration>);
    /// Tells the other tabs that `scope` is blocked, as `block` says.
    fn post(&self, scope: &str, block: ScopeBlock);
}

/// A read running on the page, which carries out the steps the page decides for it: its
/// fetch, its screens.
pub(crate) trait RunningRead {
    /// Carry out `step`, which the page decided for this read.
    fn carry_out(self: Rc<Self>, step: Step);
    /// The read's trace grew: show it.
    fn traced(&self);
}

/// A page's reads, the client they share, and the host their events are carried out on.
pub(crate) struct Registry<H> {
    host: H,
    client: RefCell<Client>,
    /// Who carries out each read's steps, while anything holds it.
    running: RefCell<Vec<(ReadId, Weak<dyn RunningRead>)>>,
}

impl<H: Host> Registry<H> {
    /// A page with no reads, on `host`.
    pub(crate) const fn new(host: H) -> Self {
        Self {
            host,
            client: RefCell::new(Client::new()),
            running: RefCell::new(Vec::new()),
        }
    }

    /// A read `open`s on the page now; `running` makes what carries out its steps, given the
    /// read's name, before its first step is carried out (at once).
    pub(crate) fn begin<C: RunningRead + 'static>(
        &self,
        running: impl FnOnce(ReadId) -> Rc<C>,
        open: impl FnOnce(&mut Client, Duration) -> Result<ReadId, PolicyError>,
    ) -> Result<Rc<C>, PolicyError> {
        let read = open(&mut self.client.borrow_mut(), self.host.now())?;
        let run = running(read);
        let dyn_run: Rc<dyn RunningRead> = run.clone();
        (self.running.borrow_mut()).push((read, Rc::downgrade(&dyn_run)));
        self.settle(Some(read));
        Ok(run)
    }

    /// An input to the page at the time now, for `read` if it is one read's; then every event
    /// it caused is carried out.
    pub(crate) fn input(&self, read: Option<ReadId>, handle: impl FnOnce(&mut Client, Duration)) {
        handle(&mut self.client.borrow_mut(), self.host.now());
        self.settle(read);
    }

    /// What another tab said: a block it met holds this page's reads too, and an ask is
    /// answered with every block this page knows still runs.
    pub(crate) fn heard(&self, message: TabMessage) {
        match message {
            TabMessage::Block { scope, block } => self.input(None, |client, now| {
                client.handle_block(now, &scope, block);
            }),
            TabMessage::Ask => {
                let blocks = self.client.borrow().running_blocks(self.host.now());
                for (scope, block) in &blocks {
                    self.host.post(scope, *block);
                }
            }
        }
    }

    /// Looks at the page's client.
    pub(crate) fn look<R>(&self, look: impl FnOnce(&Client) -> R) -> R {
        look(&self.client.borrow())
    }

    /// Gives the page's client an input that causes no event (a scope's policy).
    pub(crate) fn set<R>(&self, set: impl FnOnce(&mut Client) -> R) -> R {
        set(&mut self.client.borrow_mut())
    }

    /// After an input: reads that nothing carries out any more are forgotten, then every event
    /// is carried out.
    fn settle(&self, read: Option<ReadId>) {
        self.forget_let_go();
        self.drive(read);
    }

    /// Reads that nothing carries out any more are left (if they still run) and removed.
    fn forget_let_go(&self) {
        let mut gone = Vec::new();
        self.running.borrow_mut().retain(|(read, run)| {
            let held = run.strong_count() > 0;
            if !held {
                gone.push(*read);
            }
            held
        });
        // Most inputs find none: the clock is read only for a read to leave.
        if gone.is_empty() {
            return;
        }
        let now = self.host.now();
        let mut client = self.client.borrow_mut();
        for read in gone {
            client.handle_leave(now, read);
            client.remove(read);
        }
    }

    /// Carries out every event the page has decided, in order, then shows the trace of every
    /// read that moved (and of `read`, the input's), then arms the page's one timer. A running
    /// read may give the page another input as it carries out a step: its events are carried
    /// out then, in the same order.
    fn drive(&self, read: Option<ReadId>) {
        let mut moved: Vec<ReadId> = read.into_iter().collect();
        while let Some(event) = self.next_event() {
            match event {
                ClientEvent::Step { read, step } => {
                    if !moved.contains(&read) {
                        moved.push(read);
                    }
                    if let Some(run) = self.running(read) {
                        run.carry_out(step);
                    }
                }
                ClientEvent::Blocked { scope, block } => self.host.post(&scope, block),
                // A page's retry purses and places in flight are its own (it never calls
                // `handle_shared_response` nor shares its leases): the client asks it for no
                // token and no place, and gives nothing back.
                ClientEvent::TakeToken { .. }
                | ClientEvent::GiveBack { .. }
                | ClientEvent::TakeLease { .. }
                | ClientEvent::GiveLease { .. } => {}
            }
        }
        for read in moved {
            if let Some(run) = self.running(read) {
                run.traced();
            }
        }
        self.host.arm(self.client.borrow().poll_timeout());
    }

    fn next_event(&self) -> Option<ClientEvent> {
        self.client.borrow_mut().poll_event()
    }

    fn running(&self, read: ReadId) -> Option<Rc<dyn RunningRead>> {
        let running = self.running.borrow();
        running.iter().find(|(r, _)| *r == read)?.1.upgrade()
    }
}
