//! How a value a server sent is shown to a reader: the one rule, for the trace, the stop
//! message and the swatches alike. A leaf: it knows nothing of what the value means.

/// A value as received, quoted for a reader: “text”, with any control character shown as
/// U+FFFD (so what a server sent cannot break the line it is shown in).
pub fn quoted(text: &str) -> String {
    let shown: String = text
        .chars()
        .map(|c| if c.is_control() { '\u{fffd}' } else { c })
        .collect();
    format!("\u{201c}{shown}\u{201d}")
}
