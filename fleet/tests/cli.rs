//! The fleet's command line as a user runs it: `--help`, and what it refuses.

use std::process::{Command, Output};

fn fleet(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_palette-list-fleet"))
        .args(args)
        .output()
        .expect("the fleet binary runs")
}

#[test]
fn help_says_what_it_takes() {
    let o = fleet(&["--help"]);
    assert_eq!(o.status.code(), Some(0));
    let help = String::from_utf8(o.stdout).unwrap();
    for word in [
        "Usage: palette-list-fleet",
        "--seed <SEED>",
        "[default: 1]",
        "--svg <PATH>",
    ] {
        assert!(help.contains(word), "{word:?} is not in:\n{help}");
    }
}

#[test]
fn an_unknown_flag_or_a_seed_that_is_no_number_is_refused_by_name_before_any_run() {
    for (args, named) in [
        (&["--sed", "2"][..], "'--sed'"),
        (&["--seed", "two"][..], "'two'"),
        (&["--svg"][..], "--svg <PATH>"),
    ] {
        let o = fleet(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(o.stderr).unwrap();
        assert!(err.contains(named), "{named:?} is not in:\n{err}");
        assert!(o.stdout.is_empty(), "{args:?} ran the fleet");
    }
}
