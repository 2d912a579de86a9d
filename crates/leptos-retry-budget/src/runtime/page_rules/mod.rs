//! The page's own rules, which need no browser: compiled on every target and tested natively.
//! Which reads are the same read, so that screens may share one (`coalesce`); the registry of
//! a page's reads, its one timer and its tabs, behind what the page runs on (`registry`).

pub(crate) mod coalesce;
pub(crate) mod registry;

#[cfg(test)]
mod tests {
    mod coalesce;
    mod registry;
}
