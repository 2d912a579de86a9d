//! [`RedisShare`]: the processes reading one quota share their blocks, their scopes'
//! retry purses and their scopes' places in flight, through Redis. One
//! multiplexed connection per process; every call bounded by a short timeout. While Redis is
//! away the process reads with its own ledger (a block it learns holds locally until its end,
//! as always), says so once, and keeps what it learns; once Redis answers again it publishes
//! every block it holds that still runs and every place in flight its attempts hold, and only
//! then says so and shares again.

use std::collections::HashMap;
use std::future::Future;
use std::hash::BuildHasher;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use redis::aio::MultiplexedConnection;
use redis::{AsyncConnectionConfig, Script};
use retry_budget::scope::RetryPurse;
use retry_budget_tokio::{Lease, LedgerShare, SharedBlock, TokenTaken};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::error::RedisShareError;
use crate::record;

/// How a [`RedisShare`] names its keys and how long it waits for Redis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShareOptions {
    prefix: String,
    timeout: Duration,
    retry_every: Duration,
    place_margin: Duration,
}

impl ShareOptions {
    /// Keys `retry-budget:block:<scope>`; every call to Redis given 100 ms; while Redis is
    /// away, asked again every 250 ms; a place in flight held at most its attempt's cap and
    /// 1 s.
    pub const fn new() -> Self {
        Self {
            prefix: String::new(),
            timeout: Duration::from_millis(100),
            retry_every: Duration::from_millis(250),
            place_margin: Duration::from_secs(1),
        }
    }

    /// Puts `prefix` before every key (default none: keys begin `retry-budget:block:`), so
    /// that apps sharing a Redis keep apart.
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// How long any one call to Redis may take (default 100 ms): a read waits at most this
    /// long for the others' block before it starts.
    pub const fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// How often Redis is asked again while it is away (default 250 ms).
    pub const fn with_retry_every(mut self, every: Duration) -> Self {
        self.retry_every = every;
        self
    }

    /// How long past its attempt's cap a place in flight is held in Redis (default 1 s): an
    /// attempt gives its place back as it ends, and a process that dies holding places frees
    /// them this long after their attempts' caps at most.
    pub const fn with_place_margin(mut self, margin: Duration) -> Self {
        self.place_margin = margin;
        self
    }
}

impl Default for ShareOptions {
    fn default() -> Self {
        Self::new()
    }
}

/// What a share says of Redis, once each time it changes: through `tracing` (away a `WARN`,
/// back an `INFO`), and to [`RedisShare::on_status`]'s callback where the app gives one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShareStatus {
    /// Redis cannot be used: the process reads with its own ledger until it can.
    Away(RedisShareError),
    /// Redis answers again: the blocks this process holds, and the places in flight its
    /// attempts hold, are published; then the share is used again.
    Back {
        /// Host and port.
        place: String,
        /// How many blocks still running were published again.
        republished: usize,
    },
}

impl std::fmt::Display for ShareStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Away(why) => write!(
                f,
                "retry-budget-redis: {why}; this process reads with its own ledger until \
                 Redis answers"
            ),
            Self::Back { place, republished } => write!(
                f,
                "retry-budget-redis: Redis at {place} answers again; sharing, {republished} \
                 running block(s) published again"
            ),
        }
    }
}

/// The blocks of every process reading one quota, shared through Redis: give it to
/// [`retry_budget_tokio::Client::share_with`]. Clones share one connection.
#[derive(Clone)]
pub struct RedisShare {
    inner: Arc<Inner>,
}

struct Inner {
    client: redis::Client,
    /// Where Redis is, for messages: host and port, never the URL (it may hold a password).
    place: String,
    options: ShareOptions,
    grow: Script,
    read: Script,
    take: Script,
    give: Script,
    take_place: Script,
    settle: Script,
    give_place: Script,
    /// This process's name among the holders of places in flight: random, so two processes
    /// never share one.
    name: String,
    connection: tokio::sync::Mutex<Option<MultiplexedConnection>>,
    state: Mutex<State>,
    on_status: OnceLock<Tell>,
    /// What this process writes as its attempts end, in the order its client decided it
    /// (`Inner::in_order`).
    writes: OnceLock<mpsc::UnboundedSender<Write>>,
}

/// A write to Redis that must not overtake the one before it.
enum Write {
    /// A block this process met, for every process to see.
    Block(String, SharedBlock),
    /// A place in flight this process's attempt gives back.
    Place(String, u64),
}

/// Where a share says what happens to Redis.
type Tell = Box<dyn Fn(&ShareStatus) + Send + Sync>;

#[derive(Default)]
struct State {
    /// Redis is away: nothing is asked of it but by the task that waits for its return.
    away: bool,
    /// Every block this process has published, to publish again after an outage.
    held: HashMap<String, Held>,
    /// Every place in flight this process's attempts hold (taken in Redis, or taken on the
    /// process's own limit while Redis was away), by scope and attempt, and until when: to
    /// make true in Redis again after an outage.
    places: HashMap<Place, Instant>,
    /// A task keeps this process's places true in Redis (`Inner::keep_places`).
    keeping: bool,
}

/// A place in flight this process's attempt holds: its scope, and the attempt's name.
type Place = (String, u64);

impl State {
    /// The places this process's attempts still hold at `now`, each with what remains of it;
    /// the ones past their time are forgotten.
    fn running_places(&mut self, now: Instant) -> Vec<(Place, Duration)> {
        self.places.retain(|_, until| *until > now);
        (self.places.iter())
            .map(|(place, until)| (place.clone(), *until - now))
            .collect()
    }
}

#[derive(Clone, Copy)]
struct Held {
    until: Instant,
    block: SharedBlock,
}

impl RedisShare {
    /// A share on the Redis at `url` (`redis://host:port/db`), nothing asked of it yet: a URL
    /// no Redis client can use is refused by name. Then [`connect`](Self::connect).
    pub fn open(url: &str, options: ShareOptions) -> Result<Self, RedisShareError> {
        let client = redis::Client::open(url).map_err(|e| {
            // The client's own words name what is wrong; the URL itself, which may hold a
            // password, is never repeated.
            RedisShareError::Url(e.to_string().replace(url, "(the URL)"))
        })?;
        let place = client.get_connection_info().addr().to_string();
        Ok(Self {
            inner: Arc::new(Inner {
                client,
                place,
                options,
                grow: Script::new(record::GROW),
                read: Script::new(record::READ),
                take: Script::new(record::TAKE),
                give: Script::new(record::GIVE),
                take_place: Script::new(record::TAKE_PLACE),
                settle: Script::new(record::SETTLE),
                give_place: Script::new(record::GIVE_PLACE),
                name: format!(
                    "{:016x}",
                    std::collections::hash_map::RandomState::new()
                        .hash_one((std::process::id(), std::time::SystemTime::now()))
                ),
                connection: tokio::sync::Mutex::new(None),
                state: Mutex::new(State::default()),
                on_status: OnceLock::new(),
                writes: OnceLock::new(),
            }),
        })
    }

    /// Says what happens to Redis through `tell` too, beside `tracing`. Once, before the first
    /// call to Redis.
    pub fn on_status(&self, tell: impl Fn(&ShareStatus) + Send + Sync + 'static) {
        let _ = self.inner.on_status.set(Box::new(tell));
    }

    /// Connects to Redis, within the share's timeout: what is wrong, if it cannot (said once
    /// as well). Either way the share is usable: while Redis is away it is asked again every
    /// [`with_retry_every`](ShareOptions::with_retry_every), and the process reads with its
    /// own ledger meanwhile.
    pub async fn connect(&self) -> Result<(), RedisShareError> {
        match self.inner.connection().await {
            // A Redis used for the first time (or started empty) waits for the places of
            // running attempts from now (`record::SETTLE`); `invoke` says it if Redis fails.
            Ok(_) => self.inner.start_settling().await,
            Err(e) => {
                self.inner.away(e.clone());
                Err(e)
            }
        }
    }

    /// Where Redis is: host and port.
    pub fn place(&self) -> &str {
        &self.inner.place
    }
}

impl Inner {
    /// Says `status` through `tracing` (Redis away a `WARN`, back an `INFO`, naming its host
    /// and port, never its URL), and to the app's own callback if it gave one.
    fn tell(&self, status: &ShareStatus) {
        match status {
            ShareStatus::Away(why) => {
                crate::counts::away();
                tracing::warn!(
                    redis = %self.place,
                    error = %why,
                    "Redis away: this process reads with its own ledger until it answers"
                );
            }
            ShareStatus::Back { republished, .. } => tracing::info!(
                redis = %self.place,
                republished,
                "Redis back: sharing again, running blocks published again"
            ),
        }
        if let Some(tell) = self.on_status.get() {
            tell(status);
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn timeout(&self) -> RedisShareError {
        RedisShareError::Timeout {
            place: self.place.clone(),
            timeout: self.options.timeout,
        }
    }

    fn failed(&self, e: &redis::RedisError) -> RedisShareError {
        if e.is_timeout() {
            return self.timeout();
        }
        RedisShareError::Failed {
            place: self.place.clone(),
            why: e.to_string(),
        }
    }

    /// The process's one connection, made within the timeout where there is none.
    async fn connection(&self) -> Result<MultiplexedConnection, RedisShareError> {
        let mut slot = self.connection.lock().await;
        if let Some(c) = slot.as_ref() {
            return Ok(c.clone());
        }
        let config = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(self.options.timeout))
            .set_response_timeout(Some(self.options.timeout));
        let made = self
            .client
            .get_multiplexed_async_connection_with_config(&config);
        let c = tokio::time::timeout(self.options.timeout, made)
            .await
            .map_err(|_| self.timeout())?
            .map_err(|e| self.failed(&e))?;
        *slot = Some(c.clone());
        Ok(c)
    }

    /// One script call within the timeout. A failure drops the connection and marks Redis
    /// away.
    async fn invoke<T: redis::FromRedisValue>(
        self: &Arc<Self>,
        script: &Script,
        keys: &[&str],
        args: &[&str],
    ) -> Result<T, RedisShareError> {
        // One timeout for the whole call, the wait for the connection included: calls that
        // queue behind a slow connect are bounded each, not one after another.
        let call = async {
            let mut c = self.connection().await?;
            let mut call = script.prepare_invoke();
            for k in keys {
                call.key(*k);
            }
            for a in args {
                call.arg(*a);
            }
            call.invoke_async(&mut c).await.map_err(|e| self.failed(&e))
        };
        let result = tokio::time::timeout(self.options.timeout, call)
            .await
            .unwrap_or_else(|_| Err(self.timeout()));
        if let Err(e) = &result {
            // Whoever holds the slot is making a new connection already.
            if let Ok(mut slot) = self.connection.try_lock() {
                *slot = None;
            }
            self.away(e.clone());
        }
        result
    }

    /// Redis is away: said once, and a task asks for it until it answers.
    fn away(self: &Arc<Self>, why: RedisShareError) {
        {
            let mut state = self.state();
            if state.away {
                return;
            }
            state.away = true;
        }
        self.tell(&ShareStatus::Away(why));
        let inner = Arc::downgrade(self);
        let every = self.options.retry_every;
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                let Some(inner) = inner.upgrade() else { return };
                if inner.answers().await && inner.back().await {
                    return;
                }
            }
        });
    }

    /// Whether Redis answers a `PING` within the timeout (a connection alone is not enough:
    /// a paused or loading Redis accepts one and answers nothing).
    async fn answers(&self) -> bool {
        let Ok(mut c) = self.connection().await else {
            return false;
        };
        let ping = redis::cmd("PING");
        let ping = ping.query_async::<String>(&mut c);
        let answered = matches!(
            tokio::time::timeout(self.options.timeout, ping).await,
            Ok(Ok(_))
        );
        if !answered {
            *self.connection.lock().await = None;
        }
        answered
    }

    /// Redis answers again: every block still running, and every place in flight this
    /// process's attempts hold, is published; only then is the share used again (no read is
    /// granted on what Redis says before it holds them), and said. False, and Redis is still
    /// away (asked again), where a write fails.
    async fn back(self: &Arc<Self>) -> bool {
        let (running, places) = {
            let mut state = self.state();
            let now = Instant::now();
            state.held.retain(|_, h| h.until > now);
            let running: Vec<(String, SharedBlock)> = (state.held.iter())
                .map(|(scope, h)| {
                    let block = SharedBlock {
                        remaining: h.until - now,
                        ..h.block
                    };
                    (scope.clone(), block)
                })
                .collect();
            (running, state.running_places(now))
        };
        for (scope, block) in &running {
            if self.write(scope, block).await.is_err() {
                return false;
            }
        }
        for ((scope, lease), left) in &places {
            if self.make_true(scope, *lease, *left).await.is_err() {
                return false;
            }
        }
        self.state().away = false;
        self.tell(&ShareStatus::Back {
            place: self.place.clone(),
            republished: running.len(),
        });
        true
    }

    fn key(&self, scope: &str) -> String {
        format!("{}retry-budget:block:{scope}", self.options.prefix)
    }

    fn purse_key(&self, scope: &str) -> String {
        format!("{}retry-budget:purse:{scope}", self.options.prefix)
    }

    /// Until when a Redis that started empty gives no new place (`record::TAKE_PLACE`).
    fn settled_key(&self) -> String {
        format!("{}retry-budget:places-settled", self.options.prefix)
    }

    fn places_key(&self, scope: &str) -> String {
        format!("{}retry-budget:places:{scope}", self.options.prefix)
    }

    /// Who holds the place of this process's attempt `lease`.
    fn holder(&self, lease: u64) -> String {
        format!("{}:{lease}", self.name)
    }

    /// Takes one of `limit` places on `scope` for `lease` for `ttl` (`whatever`: whatever the
    /// count, a place already held): whether it was taken.
    async fn hold_place(
        self: &Arc<Self>,
        scope: &str,
        lease: u64,
        limit: u32,
        ttl: Duration,
        whatever: bool,
    ) -> Result<bool, RedisShareError> {
        let args = [
            self.holder(lease),
            limit.to_string(),
            ttl.as_millis().max(1).to_string(),
            u8::from(whatever).to_string(),
            self.settle_for().as_millis().to_string(),
        ];
        let args = [&*args[0], &*args[1], &*args[2], &*args[3], &*args[4]];
        let keys = [
            &*self.places_key(scope),
            &*self.settled_key(),
            &*self.key(scope),
        ];
        let taken: i64 = (self.invoke(&self.take_place, &keys, &args)).await?;
        Ok(taken == 1)
    }

    /// Where Redis holds no settled key, starts its wait for the places of running attempts
    /// now (`record::SETTLE`).
    async fn start_settling(self: &Arc<Self>) -> Result<(), RedisShareError> {
        let settle = (self.settle_for().as_millis()).to_string();
        (self.invoke::<i64>(&self.settle, &[&self.settled_key()], &[&settle]))
            .await
            .map(drop)
    }

    /// How long a Redis that started empty gives no new place: four times `retry_every`, in
    /// which every running process makes its places true again.
    fn settle_for(&self) -> Duration {
        4 * self.options.retry_every
    }

    /// Makes the place `lease` holds on `scope` true in Redis for `left` more, whatever the
    /// count; given back at once where its attempt gave it back meanwhile.
    async fn make_true(
        self: &Arc<Self>,
        scope: &str,
        lease: u64,
        left: Duration,
    ) -> Result<(), RedisShareError> {
        self.hold_place(scope, lease, 0, left, true).await?;
        let place = (scope.to_owned(), lease);
        if !self.state().places.contains_key(&place) {
            self.give_place(scope, lease);
        }
        Ok(())
    }

    /// While this process holds places in flight, a task makes them true in Redis every
    /// `retry_every`: a Redis that started empty holds them again within that (and gives no
    /// new place meanwhile, `record::TAKE_PLACE`), and a Redis gone away is noticed.
    fn keep_places(self: &Arc<Self>) {
        {
            let mut state = self.state();
            if state.keeping {
                return;
            }
            state.keeping = true;
        }
        let inner = Arc::downgrade(self);
        let every = self.options.retry_every;
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                let Some(inner) = inner.upgrade() else { return };
                let (away, places) = {
                    let mut state = inner.state();
                    let places = state.running_places(Instant::now());
                    if places.is_empty() {
                        state.keeping = false;
                        return;
                    }
                    (state.away, places)
                };
                // Away, the task that waits for Redis makes them true on its return.
                if away {
                    continue;
                }
                for ((scope, lease), left) in places {
                    if inner.make_true(&scope, lease, left).await.is_err() {
                        break;
                    }
                }
            }
        });
    }

    /// Gives back the place of `lease` on `scope` in Redis (`in_order`).
    fn give_place(self: &Arc<Self>, scope: &str, lease: u64) {
        self.in_order(Write::Place(scope.to_owned(), lease));
    }

    /// Writes `write` to Redis from one task that writes this process's blocks and the places
    /// it gives back one after another, in the order they were asked for: a `429`'s block is
    /// in Redis before the place its attempt held is free, so no other process is given that
    /// place to send on during the block (`record::TAKE_PLACE` gives none while one runs).
    /// Nothing is written while Redis is away: its blocks wait in `held`, and Redis holds none
    /// of its places until they are made true again.
    fn in_order(self: &Arc<Self>, write: Write) {
        let writes = self.writes.get_or_init(|| {
            let (writes, mut next) = mpsc::unbounded_channel();
            let inner = Arc::downgrade(self);
            tokio::spawn(async move {
                while let Some(write) = next.recv().await {
                    let Some(inner) = inner.upgrade() else { return };
                    if inner.state().away {
                        continue;
                    }
                    let _ = match write {
                        Write::Block(scope, block) => inner.write(&scope, &block).await,
                        Write::Place(scope, lease) => {
                            let (key, holder) = (inner.places_key(&scope), inner.holder(lease));
                            (inner.invoke::<i64>(&inner.give_place, &[&key], &[&holder]))
                                .await
                                .map(drop)
                        }
                    };
                }
            });
            writes
        });
        let _ = writes.send(write);
    }

    async fn write(
        self: &Arc<Self>,
        scope: &str,
        block: &SharedBlock,
    ) -> Result<(), RedisShareError> {
        let ms = block.remaining_ms().to_string();
        let value = block.stored_value();
        self.invoke::<i64>(&self.grow, &[&self.key(scope)], &[&ms, &value])
            .await
            .map(drop)
    }
}

impl LedgerShare for RedisShare {
    fn publish(&self, scope: &str, block: SharedBlock) {
        let away = {
            let mut state = self.inner.state();
            let now = Instant::now();
            state.held.retain(|_, h| h.until > now);
            let until = now + block.remaining;
            let later = state.held.get(scope).is_none_or(|h| h.until < until);
            if later {
                state.held.insert(scope.to_owned(), Held { until, block });
            }
            state.away
        };
        // While Redis is away the block waits in `held` for its return.
        if !away {
            self.inner.in_order(Write::Block(scope.to_owned(), block));
        }
    }

    fn fetch<'a>(
        &'a self,
        scope: &'a str,
    ) -> Pin<Box<dyn Future<Output = Option<SharedBlock>> + Send + 'a>> {
        Box::pin(async move {
            if self.inner.state().away {
                return None;
            }
            let (left, value): (i64, Option<String>) = self
                .inner
                .invoke(&self.inner.read, &[&self.inner.key(scope)], &[])
                .await
                .ok()?;
            record::read(left, value.as_deref())
        })
    }

    fn take_token<'a>(
        &'a self,
        scope: &'a str,
        purse: RetryPurse,
    ) -> Pin<Box<dyn Future<Output = Option<TokenTaken>> + Send + 'a>> {
        Box::pin(async move {
            if self.inner.state().away {
                return None;
            }
            let full = purse.full().to_string();
            let (took, left): (i64, i64) = self
                .inner
                .invoke(&self.inner.take, &[&self.inner.purse_key(scope)], &[&full])
                .await
                .ok()?;
            Some(TokenTaken {
                took: took == 1,
                left: u32::try_from(left).ok()?,
            })
        })
    }

    fn take_lease<'a>(
        &'a self,
        scope: &'a str,
        lease: u64,
        limit: u32,
        cap: Duration,
    ) -> Pin<Box<dyn Future<Output = Option<Lease>> + Send + 'a>> {
        Box::pin(async move {
            let inner = &self.inner;
            let ttl = cap + inner.options.place_margin;
            let place = (scope.to_owned(), lease);
            // Dropped before Redis answers (the read's future gone), a place Redis may have
            // given goes back.
            let mut unanswered = Unanswered(Some((inner.clone(), place.clone())));
            let away = inner.state().away;
            let taken = match away {
                true => None,
                false => inner.hold_place(scope, lease, limit, ttl, false).await.ok(),
            };
            unanswered.0 = None;
            match taken {
                Some(false) => Some(Lease::AllTaken),
                // Taken; or taken on this process's own limit, Redis away, to be made true
                // in Redis once it is back.
                taken => {
                    (inner.state().places).insert(place, Instant::now() + ttl);
                    inner.keep_places();
                    taken.map(|_| Lease::Taken)
                }
            }
        })
    }

    fn answers_within(&self) -> Duration {
        self.inner.options.timeout
    }

    fn give_lease(&self, scope: &str, lease: u64) {
        let away = {
            let mut state = self.inner.state();
            state.places.remove(&(scope.to_owned(), lease));
            state.away
        };
        // While Redis is away the place is only this process's to forget; Redis holds none
        // of its places until they are made true again.
        if !away {
            self.inner.give_place(scope, lease);
        }
    }

    fn give_back(&self, scope: &str, thousandths: u32, purse: RetryPurse) {
        // While Redis is away a refill is this process's alone: the shared purse is as the
        // others left it.
        if self.inner.state().away || thousandths == 0 {
            return;
        }
        let inner = self.inner.clone();
        let key = inner.purse_key(scope);
        tokio::spawn(async move {
            let args = [purse.full().to_string(), thousandths.to_string()];
            let _ = inner
                .invoke::<i64>(&inner.give, &[&key], &[&args[0], &args[1]])
                .await;
        });
    }
}

/// A place asked of Redis whose answer no one waits for any more: given back, in case Redis
/// gave it.
struct Unanswered(Option<(Arc<Inner>, Place)>);

impl Drop for Unanswered {
    fn drop(&mut self) {
        if let Some((inner, (scope, lease))) = self.0.take() {
            if tokio::runtime::Handle::try_current().is_ok() {
                inner.give_place(&scope, lease);
            }
        }
    }
}
