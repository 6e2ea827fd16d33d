//! Isolated units: each agent run works on its own view of the working tree, and what it
//! changed comes back as a [`ChangeSet`] the engine checks and applies (see
//! `docs/architecture.md`, "Isolated units").
//!
//! Two kinds of view, chosen once per process ([`Mode::detect`]):
//!
//! - [`Mode::Overlay`]: an overlay mount whose lower layer is the shared tree and whose upper
//!   layer is a fresh directory. Opening costs one mount; the change set is read from the upper
//!   layer, so time and disk grow with what the agent touches, not with the repository.
//!   Needs the right to mount (root, or `CAP_SYS_ADMIN`).
//! - [`Mode::Copy`]: a copy of the tree's files that git would not ignore (without `.git/`
//!   and `.rectify/`), compared with what was copied afterwards. Works everywhere; costs a copy
//!   of the tree per agent run.
//!
//! `RECTIFY_ISOLATION=overlay|copy` forces one.

mod changes;
mod copy;
mod overlay;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

pub use changes::{Change, ChangeKind, ChangeSet};

/// How views are made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// An overlay mount over the shared tree (cost proportional to what the agent touches).
    Overlay,
    /// A copy of the tree (cost proportional to the tree).
    Copy,
}

impl Mode {
    /// `RECTIFY_ISOLATION` when set to `overlay` or `copy`, else overlay when this process
    /// can mount one (probed once), else copy.
    pub fn detect() -> Mode {
        static MODE: OnceLock<Mode> = OnceLock::new();
        *MODE.get_or_init(|| match std::env::var("RECTIFY_ISOLATION").as_deref() {
            Ok("copy") => Mode::Copy,
            Ok("overlay") => Mode::Overlay,
            _ if overlay::probe(&scratch_root()) => Mode::Overlay,
            _ => Mode::Copy,
        })
    }

    /// `overlay` or `copy`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Overlay => "overlay",
            Mode::Copy => "copy",
        }
    }
}

/// The directory views are made in: `$TMPDIR/rectify-views` (outside every working tree,
/// since an overlay's layers may not overlap).
pub fn scratch_root() -> PathBuf {
    std::env::temp_dir().join("rectify-views")
}

/// One agent run's own view of the shared tree. Dropping it unmounts and removes it.
#[derive(Debug)]
pub struct View {
    mode: Mode,
    shared: PathBuf,
    dir: PathBuf,
    root: PathBuf,
    manifest: copy::Manifest,
    mounted: bool,
}

impl View {
    /// A new view of `shared` (an absolute, canonical path) in `mode`.
    pub fn open(shared: &Path, mode: Mode) -> std::io::Result<View> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let scratch = scratch_root();
        std::fs::create_dir_all(&scratch)?;
        let name = format!(
            "{}-{}-{:04x}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed),
            fastrand::u16(..)
        );
        let dir = scratch.join(name);
        std::fs::create_dir(&dir)?;
        let mut view = View {
            mode,
            shared: shared.to_path_buf(),
            root: dir.join("tree"),
            dir,
            manifest: copy::Manifest::default(),
            mounted: false,
        };
        match mode {
            Mode::Overlay => {
                overlay::mount(&view.shared, &view.dir)?;
                view.mounted = true;
            }
            Mode::Copy => view.manifest = copy::copy_tree(&view.shared, &view.root)?,
        }
        Ok(view)
    }

    /// Where the agent runs: the view's root, standing for the working directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// How the view was made.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// What the agent changed, relative to the working directory. Call it while no other
    /// change is being applied to the shared tree (the engine holds its tree lock).
    pub fn changes(&self) -> std::io::Result<ChangeSet> {
        match self.mode {
            Mode::Overlay => overlay::changes(&self.shared, &self.dir),
            Mode::Copy => copy::changes(&self.shared, &self.root, &self.manifest),
        }
    }
}

impl Drop for View {
    fn drop(&mut self) {
        if self.mounted && overlay::unmount(&self.root).is_err() {
            // Never remove a directory that may still show the shared tree.
            tracing::warn!(view = %self.dir.display(), "a view could not be unmounted");
            return;
        }
        // Removing a view's files is the engine's business, not the unit's: off its thread.
        let dir = std::mem::take(&mut self.dir);
        std::thread::spawn(move || remove_all(&dir));
    }
}

/// Removes `dir`, also when an overlay left its work directory unreadable.
fn remove_all(dir: &Path) {
    if std::fs::remove_dir_all(dir).is_ok() {
        return;
    }
    let _ = std::fs::set_permissions(
        dir.join("work").join("work"),
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// Unmounts and removes views left by processes of this host that are gone (a `kill -9`).
pub fn sweep_stale() {
    let Ok(entries) = std::fs::read_dir(scratch_root()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.split('-').next())
            .and_then(|p| p.parse::<i32>().ok())
        else {
            continue;
        };
        if pid == i32::try_from(std::process::id()).unwrap_or(0) || alive(pid) {
            continue;
        }
        let dir = entry.path();
        let tree = dir.join("tree");
        if overlay::is_mount(&tree) && overlay::unmount(&tree).is_err() {
            continue;
        }
        remove_all(&dir);
    }
}

fn alive(pid: i32) -> bool {
    Path::new("/proc").join(pid.to_string()).exists()
}
