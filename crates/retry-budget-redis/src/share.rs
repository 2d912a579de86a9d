//! [`RedisShare`]: the processes reading one quota share their blocks, and their scopes'
//! retry purses, through Redis. One
//! multiplexed connection per process; every call bounded by a short timeout. While Redis is
//! away the process reads with its own ledger (a block it learns holds locally until its end,
//! as always), says so once, and keeps what it learns; once Redis answers again it says so
//! and publishes every block it holds that still runs.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use redis::aio::MultiplexedConnection;
use redis::{AsyncConnectionConfig, Script};
use retry_budget::scope::RetryPurse;
use retry_budget_tokio::{LedgerShare, SharedBlock, TokenTaken};
use tokio::time::Instant;

use crate::error::RedisShareError;
use crate::record;

/// How a [`RedisShare`] names its keys and how long it waits for Redis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShareOptions {
    prefix: String,
    timeout: Duration,
    retry_every: Duration,
}

impl ShareOptions {
    /// Keys `retry-budget:block:<scope>`; every call to Redis given 100 ms; while Redis is
    /// away, asked again every 250 ms.
    pub const fn new() -> Self {
        Self {
            prefix: String::new(),
            timeout: Duration::from_millis(100),
            retry_every: Duration::from_millis(250),
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
    /// Redis answers again: the blocks this process holds are published.
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
    connection: tokio::sync::Mutex<Option<MultiplexedConnection>>,
    state: Mutex<State>,
    on_status: OnceLock<Tell>,
}

/// Where a share says what happens to Redis.
type Tell = Box<dyn Fn(&ShareStatus) + Send + Sync>;

#[derive(Default)]
struct State {
    /// Redis is away: nothing is asked of it but by the task that waits for its return.
    away: bool,
    /// Every block this process has published, to publish again after an outage.
    held: HashMap<String, Held>,
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
                connection: tokio::sync::Mutex::new(None),
                state: Mutex::new(State::default()),
                on_status: OnceLock::new(),
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
            Ok(_) => Ok(()),
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
        key: &str,
        args: &[&str],
    ) -> Result<T, RedisShareError> {
        // One timeout for the whole call, the wait for the connection included: calls that
        // queue behind a slow connect are bounded each, not one after another.
        let call = async {
            let mut c = self.connection().await?;
            let mut call = script.key(key);
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
                if inner.answers().await {
                    inner.back().await;
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

    /// Redis answers again: every block still running is published, then said. A write that
    /// fails sends the share away again (said again, and asked for again).
    async fn back(self: &Arc<Self>) {
        let running: Vec<(String, SharedBlock)> = {
            let mut state = self.state();
            state.away = false;
            let now = Instant::now();
            state.held.retain(|_, h| h.until > now);
            state
                .held
                .iter()
                .map(|(scope, h)| {
                    let block = SharedBlock {
                        remaining: h.until - now,
                        ..h.block
                    };
                    (scope.clone(), block)
                })
                .collect()
        };
        for (scope, block) in &running {
            if self.write(scope, block).await.is_err() {
                return;
            }
        }
        self.tell(&ShareStatus::Back {
            place: self.place.clone(),
            republished: running.len(),
        });
    }

    fn key(&self, scope: &str) -> String {
        format!("{}retry-budget:block:{scope}", self.options.prefix)
    }

    fn purse_key(&self, scope: &str) -> String {
        format!("{}retry-budget:purse:{scope}", self.options.prefix)
    }

    async fn write(
        self: &Arc<Self>,
        scope: &str,
        block: &SharedBlock,
    ) -> Result<(), RedisShareError> {
        let ms = block.remaining_ms().to_string();
        let value = block.stored_value();
        self.invoke::<i64>(&self.grow, &self.key(scope), &[&ms, &value])
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
            let inner = self.inner.clone();
            let scope = scope.to_owned();
            tokio::spawn(async move {
                let _ = inner.write(&scope, &block).await;
            });
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
                .invoke(&self.inner.read, &self.inner.key(scope), &[])
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
                .invoke(&self.inner.take, &self.inner.purse_key(scope), &[&full])
                .await
                .ok()?;
            Some(TokenTaken {
                took: took == 1,
                left: u32::try_from(left).ok()?,
            })
        })
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
                .invoke::<i64>(&inner.give, &key, &[&args[0], &args[1]])
                .await;
        });
    }
}
