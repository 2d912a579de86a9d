//! Which Leptos line the crate is compiled against, read from the `leptos` requirement its
//! manifest states (in this workspace, the workspace's): `cfg(leptos_0_9)` where it asks for
//! 0.9, nothing where it asks for 0.8, and a build error naming the requirement otherwise.
//!
//! A manifest, not a range: one requirement spanning two Leptos lines would give an app on
//! 0.8 a second Leptos (cargo does not unify a range across lines with an app's narrower
//! requirement), so each line is published with its own requirement, from the same source.

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo::rustc-check-cfg=cfg(leptos_0_9)");
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let requirement = match leptos_requirement(&dir) {
        Ok(requirement) => requirement,
        Err(e) => panic!("leptos-retry-budget cannot tell which Leptos it builds against: {e}"),
    };
    match line(&requirement) {
        Some((0, 8)) => {}
        Some((0, 9)) => println!("cargo::rustc-cfg=leptos_0_9"),
        _ => panic!(
            "leptos-retry-budget builds against Leptos 0.8 or 0.9; its manifest asks for \
             leptos \"{requirement}\""
        ),
    }
}

/// The `leptos` version requirement in `dir`'s manifest, or in its workspace's where the
/// manifest says `workspace = true`.
fn leptos_requirement(dir: &Path) -> Result<String, String> {
    let manifest = read(&dir.join("Cargo.toml"))?;
    let dependency = manifest
        .get("dependencies")
        .and_then(|d| d.get("leptos"))
        .ok_or("its manifest has no `leptos` dependency")?;
    if dependency.get("workspace").and_then(toml::Value::as_bool) == Some(true) {
        let (path, root) = workspace_manifest(dir)?;
        let dependency = root
            .get("workspace")
            .and_then(|w| w.get("dependencies"))
            .and_then(|d| d.get("leptos"))
            .ok_or_else(|| format!("{} has no `leptos` dependency", path.display()))?;
        return version_of(dependency);
    }
    version_of(dependency)
}

/// The version a dependency entry states: `"0.8"`, or `{ version = "0.8", … }`.
fn version_of(dependency: &toml::Value) -> Result<String, String> {
    dependency
        .as_str()
        .or_else(|| dependency.get("version").and_then(toml::Value::as_str))
        .map(str::to_owned)
        .ok_or_else(|| "the `leptos` dependency states no version".to_owned())
}

/// The nearest manifest above `dir` with a `[workspace]` table, and that table's manifest.
fn workspace_manifest(dir: &Path) -> Result<(PathBuf, toml::Table), String> {
    for parent in dir.ancestors().skip(1) {
        let path = parent.join("Cargo.toml");
        if path.is_file() {
            let manifest = read(&path)?;
            if manifest.contains_key("workspace") {
                return Ok((path, manifest));
            }
        }
    }
    Err("its manifest takes `leptos` from a workspace, and no workspace is above it".into())
}

fn read(path: &Path) -> Result<toml::Table, String> {
    println!("cargo::rerun-if-changed={}", path.display());
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.parse().map_err(|e| format!("{}: {e}", path.display()))
}

/// The major and minor version a requirement such as `0.8`, `^0.8.10`, `~0.8` or
/// `=0.9.0-rc1` names.
fn line(requirement: &str) -> Option<(u64, u64)> {
    let version = requirement.trim().trim_start_matches(['=', '^', '~', ' ']);
    let mut parts = version.split(['.', '-']);
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}
