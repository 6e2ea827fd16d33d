//! Views of a working tree: what an agent changes in its view comes back as a change set, and
//! nothing reaches the shared tree until the engine applies it. Both kinds of view are tested
//! (overlay only where this process may mount one: as root, as CI runs).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::path::Path;

use rectify_flow::isolate::{ChangeKind, Mode, View};

fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("dir")).unwrap();
    std::fs::create_dir_all(root.join("sub/deep")).unwrap();
    std::fs::write(root.join("a.txt"), "a").unwrap();
    std::fs::write(root.join("dir/b.txt"), "b").unwrap();
    std::fs::write(root.join("del.txt"), "d").unwrap();
    std::fs::write(root.join("sub/old.txt"), "o").unwrap();
    std::fs::write(root.join("sub/deep/x.txt"), "x").unwrap();
    dir
}

/// What an agent does in its view.
fn act(view: &Path) {
    std::fs::write(view.join("a.txt"), "changed").unwrap();
    std::fs::write(view.join("new.txt"), "new").unwrap();
    std::fs::remove_file(view.join("del.txt")).unwrap();
    std::fs::write(view.join("dir/b.txt"), "b").unwrap(); // same bytes: no change
    std::fs::write(view.join("dir/c.txt"), "c").unwrap();
    std::fs::remove_dir_all(view.join("sub")).unwrap();
    std::fs::create_dir(view.join("sub")).unwrap();
    std::fs::write(view.join("sub/fresh.txt"), "f").unwrap();
    std::os::unix::fs::symlink("/etc/passwd", view.join("link")).unwrap();
}

fn summary(view: &View) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for c in view.changes().unwrap().changes {
        let kind = match c.kind {
            ChangeKind::Write { source, .. } => {
                format!("write {}", std::fs::read_to_string(source).unwrap())
            }
            ChangeKind::Delete => "delete".to_owned(),
            ChangeKind::Symlink { target } => format!("symlink {}", target.display()),
            ChangeKind::Special => "special".to_owned(),
        };
        out.entry(c.path.display().to_string())
            .and_modify(|k: &mut String| {
                k.push_str(", ");
                k.push_str(&kind);
            })
            .or_insert(kind);
    }
    out
}

fn check(mode: Mode) {
    let dir = tree();
    let shared = dir.path().canonicalize().unwrap();
    let view = View::open(&shared, mode).unwrap();
    act(view.root());
    // Nothing reached the shared tree.
    assert_eq!(std::fs::read_to_string(shared.join("a.txt")).unwrap(), "a");
    assert!(shared.join("del.txt").exists());
    assert!(!shared.join("new.txt").exists());
    let got = summary(&view);
    let want: Vec<(&str, &str)> = match mode {
        // The overlay sees the directory replaced whole.
        Mode::Overlay => vec![
            ("a.txt", "write changed"),
            ("del.txt", "delete"),
            ("dir/c.txt", "write c"),
            ("link", "symlink /etc/passwd"),
            ("new.txt", "write new"),
            ("sub", "delete"),
            ("sub/fresh.txt", "write f"),
        ],
        // The copy sees each file that went.
        Mode::Copy => vec![
            ("a.txt", "write changed"),
            ("del.txt", "delete"),
            ("dir/c.txt", "write c"),
            ("link", "symlink /etc/passwd"),
            ("new.txt", "write new"),
            ("sub/deep/x.txt", "delete"),
            ("sub/fresh.txt", "write f"),
            ("sub/old.txt", "delete"),
        ],
    };
    let want: BTreeMap<String, String> = want
        .into_iter()
        .map(|(a, b)| (a.to_owned(), b.to_owned()))
        .collect();
    assert_eq!(got, want, "{mode:?}");
    let root = view.root().to_path_buf();
    drop(view);
    // Removed off the engine's thread, at once.
    let start = std::time::Instant::now();
    while root.exists() && start.elapsed().as_secs() < 10 {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(!root.exists(), "a closed view is removed");
}

#[test]
fn copy_views_report_exactly_what_changed() {
    check(Mode::Copy);
}

#[test]
fn overlay_views_report_exactly_what_changed() {
    if Mode::detect() != Mode::Overlay {
        eprintln!("overlay views need the right to mount; not tested here");
        return;
    }
    check(Mode::Overlay);
}

#[test]
fn a_view_opened_before_another_change_does_not_report_it() {
    for mode in [Mode::Copy, Mode::Overlay] {
        if mode == Mode::Overlay && Mode::detect() != Mode::Overlay {
            continue;
        }
        let dir = tree();
        let shared = dir.path().canonicalize().unwrap();
        let view = View::open(&shared, mode).unwrap();
        // Another unit's change reaches the shared tree while this view is open.
        std::fs::write(shared.join("other.txt"), "theirs").unwrap();
        std::fs::write(shared.join("a.txt"), "theirs").unwrap();
        std::fs::write(view.root().join("mine.txt"), "mine").unwrap();
        let got = summary(&view);
        assert_eq!(
            got.keys().collect::<Vec<_>>(),
            ["mine.txt"],
            "{mode:?}: only this view's own change"
        );
    }
}
