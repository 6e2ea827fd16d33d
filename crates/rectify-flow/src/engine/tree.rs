//! The shared working tree: every change the engine makes to it — an agent run's change set,
//! a repaired output written back, an answer saved — is applied under one lock and logged
//! with the unit that made it, so two units never overwrite each other silently.

use std::collections::HashMap;
use std::os::unix::fs::OpenOptionsExt as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Component, Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use ignore::gitignore::Gitignore;
use rectify_core::{Diagnostic, Location};

use super::confine::{Allowed, normal};
use crate::isolate::{Change, ChangeKind, Mode, View};
use crate::spec::Confine;

/// Who wrote a path last, and when (a tick of [`Tree::now`]).
#[derive(Debug, Default)]
struct Log {
    tick: u64,
    writes: HashMap<PathBuf, (u64, String)>,
    /// Declared outputs, by the unit that declared them last and whether it still runs.
    claims: HashMap<PathBuf, (String, bool)>,
}

/// The shared tree and its write log.
#[derive(Debug)]
pub(crate) struct Tree {
    root: PathBuf,
    mode: Mode,
    log: Mutex<Log>,
    /// Test schedules: a random pause of up to this many ms before each change.
    jitter: Option<Mutex<(fastrand::Rng, u64)>>,
    /// Views are opened in the run's own task (see [`crate::RunOptions::inline_views`]).
    inline: bool,
}

/// How an agent run's change set is judged.
#[derive(Debug)]
pub(crate) struct Policy {
    /// The paths the run may change.
    pub allowed: Allowed,
    /// Confinement of what it changed elsewhere.
    pub confine: Confine,
    /// Whether a refused change is an error for the unit (else a warning: nothing of it
    /// reached the tree).
    pub refused_is_error: bool,
}

/// What applying a change set did.
#[derive(Debug, Default)]
pub(crate) struct Applied {
    /// Paths written (`true`) or removed (`false`).
    pub paths: Vec<(String, bool)>,
    /// Findings: confinement, conflicts, symlinks.
    pub problems: Vec<Diagnostic>,
}

/// Why a write was refused.
#[derive(Debug)]
pub(crate) enum WriteError {
    /// Another unit wrote the path since `since`, or declared it as its output.
    Conflict(Box<Diagnostic>),
    /// The file system refused.
    Io(std::io::Error),
}

impl Tree {
    /// The tree at `root` (canonical), with views made in `mode`.
    pub(crate) fn new(root: PathBuf, mode: Mode) -> Tree {
        Tree {
            root,
            mode,
            log: Mutex::new(Log::default()),
            jitter: None,
            inline: false,
        }
    }

    /// Views opened in the run's own task, not on a blocking thread.
    pub(crate) fn with_inline_views(mut self, inline: bool) -> Tree {
        self.inline = inline;
        self
    }

    /// Pauses of up to `max_ms` before each change, drawn from `seed` (schedule tests).
    pub(crate) fn with_jitter(mut self, seed: u64, max_ms: u64) -> Tree {
        if max_ms > 0 {
            self.jitter = Some(Mutex::new((fastrand::Rng::with_seed(seed), max_ms)));
        }
        self
    }

    fn pause(&self) {
        let Some(jitter) = &self.jitter else {
            return;
        };
        let ms = {
            let mut j = jitter
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let max = j.1;
            j.0.u64(0..=max)
        };
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }

    fn log(&self) -> MutexGuard<'_, Log> {
        self.log
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The current tick: changes logged later conflict with work based on the tree now.
    pub(crate) fn now(&self) -> u64 {
        self.log().tick
    }

    /// A new view for one agent run, and the tick it starts from. Made on a blocking thread,
    /// so that units starting together mount their views at once (unless `inline`).
    pub(crate) async fn view(&self) -> std::io::Result<(View, u64)> {
        let since = self.now();
        if self.inline {
            return Ok((View::open(&self.root, self.mode)?, since));
        }
        let (root, mode) = (self.root.clone(), self.mode);
        let view = tokio::task::spawn_blocking(move || View::open(&root, mode))
            .await
            .map_err(std::io::Error::other)??;
        Ok((view, since))
    }

    /// `unit` declares `paths` as its outputs while it runs.
    pub(crate) fn claim(&self, unit: &str, paths: &[PathBuf]) {
        let mut log = self.log();
        for p in paths {
            log.claims.insert(normal(p), (unit.to_owned(), true));
        }
    }

    /// `unit` ended: its outputs stay its own (another unit changes them only when it
    /// declares them, or its `may_write` does).
    pub(crate) fn release(&self, unit: &str) {
        for (owner, running) in self.log().claims.values_mut() {
            if owner == unit {
                *running = false;
            }
        }
    }

    /// Writes `bytes` to `rel` for `unit`, atomically, unless another unit wrote it after
    /// `since` or claims it.
    pub(crate) fn write(
        &self,
        unit: &str,
        rel: &str,
        bytes: &[u8],
        since: u64,
    ) -> Result<(), WriteError> {
        let path = normal(Path::new(rel));
        self.pause();
        let mut log = self.log();
        if let Some(d) = conflict(&log, unit, &path, since, true) {
            return Err(WriteError::Conflict(Box::new(d)));
        }
        crate::beneath::write(&self.root, &path, bytes, None)
            .map_err(|e| WriteError::Io(e.into()))?;
        stamp(&mut log, unit, path);
        Ok(())
    }

    /// Reads `view`'s change set and applies what `policy` allows, under the lock. The view
    /// is the unit's own, so it is read before the lock is taken (a change another unit applies
    /// meanwhile is a conflict the write log finds).
    pub(crate) fn apply(&self, unit: &str, view: &View, since: u64, policy: &Policy) -> Applied {
        self.pause();
        let mut applied = Applied::default();
        let changes = match view.changes() {
            Ok(c) => c,
            Err(e) => {
                applied.problems.push(
                    Diagnostic::error(
                        "flow.isolation",
                        Location::root(),
                        format!("the agent's changes could not be read from its view: {e}"),
                    )
                    .source("isolation"),
                );
                return applied;
            }
        };
        let mut ignores = Ignores::new(&self.root);
        let mut log = self.log();
        for change in &changes.changes {
            let ctx = (&mut *log, &mut ignores);
            self.apply_one(ctx, unit, since, policy, change, &mut applied);
        }
        applied
    }

    fn apply_one(
        &self,
        (log, ignores): (&mut Log, &mut Ignores),
        unit: &str,
        since: u64,
        policy: &Policy,
        change: &Change,
        applied: &mut Applied,
    ) {
        let rel = &change.path;
        let shown = rel.display().to_string();
        let verb = self.verb(change);
        if let Some(why) = never(change) {
            applied
                .problems
                .push(refused(&shown, verb, why, policy.refused_is_error));
            return;
        }
        let allowed = policy.allowed.allows(rel);
        // What git ignores (build output, caches, logs) is scratch: applied as it comes, the
        // last writer's, never judged.
        let scratch = !allowed && ignores.ignored(rel);
        if !scratch && let Some(d) = conflict(log, unit, rel, since, allowed) {
            applied.problems.push(d);
            return;
        }
        if !allowed && !scratch && policy.confine != Confine::Off {
            if policy.confine == Confine::Strict {
                applied.problems.push(refused(
                    &shown,
                    verb,
                    "outside the step's outputs",
                    policy.refused_is_error,
                ));
                return;
            }
            applied.problems.push(outside(&shown, verb));
        }
        match self.put(change) {
            Ok(()) => {
                let written = !matches!(change.kind, ChangeKind::Delete);
                applied.paths.push((shown, written));
                stamp(log, unit, rel.clone());
            }
            Err(e) => applied.problems.push(
                Diagnostic::error(
                    "flow.isolation",
                    Location::root(),
                    format!("`{shown}` could not be applied to the working tree: {e}"),
                )
                .received(shown.clone())
                .source("isolation"),
            ),
        }
    }

    fn verb(&self, change: &Change) -> &'static str {
        match change.kind {
            ChangeKind::Delete => "deleted",
            _ if crate::beneath::kind(&self.root, &change.path).is_some() => "changed",
            _ => "created",
        }
    }

    /// Applies one change to the shared tree (a file written atomically), every path resolved
    /// beneath the tree's root at the moment of the write.
    fn put(&self, change: &Change) -> std::io::Result<()> {
        use crate::beneath::{self, Kind};
        let rel = &change.path;
        match &change.kind {
            ChangeKind::Delete => beneath::remove(&self.root, rel).map_err(Into::into),
            ChangeKind::Write { source, executable } => {
                if beneath::kind(&self.root, rel) == Some(Kind::Dir) {
                    beneath::remove(&self.root, rel)?;
                }
                // The source is in the agent's view, which its leftover processes may still
                // change: never followed if it became a symlink, and a regular file only.
                let mut input = std::fs::OpenOptions::new()
                    .read(true)
                    .custom_flags(open_flags())
                    .open(source)?;
                let meta = input.metadata()?;
                if !meta.is_file() {
                    return Err(std::io::Error::other("it is no longer a regular file"));
                }
                let mode = meta.permissions().mode() & 0o777;
                let mode = if *executable { mode | 0o100 } else { mode };
                beneath::write_from(&self.root, rel, &mut input, Some(mode)).map_err(Into::into)
            }
            ChangeKind::Symlink { .. } | ChangeKind::Special => Ok(()),
        }
    }
}

/// `O_NOFOLLOW | O_NONBLOCK`: a symlink is not followed, a fifo does not block the open.
fn open_flags() -> i32 {
    let flags = rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK;
    i32::try_from(flags.bits()).unwrap_or(0)
}

/// What git ignores in the shared tree: each directory's `.gitignore` (its patterns relative
/// to that directory, the deepest deciding first), then `.git/info/exclude`. Matchers are read
/// once per change set.
struct Ignores {
    root: PathBuf,
    by_dir: HashMap<PathBuf, Option<Gitignore>>,
    exclude: Option<Gitignore>,
}

impl Ignores {
    fn new(root: &Path) -> Ignores {
        Ignores {
            root: root.to_path_buf(),
            by_dir: HashMap::new(),
            exclude: read_exclude(root),
        }
    }

    fn ignored(&mut self, rel: &Path) -> bool {
        let abs = self.root.join(rel);
        let mut dirs: Vec<PathBuf> = rel.ancestors().skip(1).map(Path::to_path_buf).collect();
        dirs.retain(|d| !d.as_os_str().is_empty());
        dirs.push(PathBuf::new());
        for dir in dirs {
            let root = &self.root;
            let matcher = self
                .by_dir
                .entry(dir.clone())
                .or_insert_with(|| read_ignore(&root.join(&dir).join(".gitignore")));
            if let Some(m) = matcher {
                let found = m.matched_path_or_any_parents(&abs, false);
                if !found.is_none() {
                    return found.is_ignore();
                }
            }
        }
        self.exclude
            .as_ref()
            .is_some_and(|m| m.matched_path_or_any_parents(&abs, false).is_ignore())
    }
}

/// A gitignore file's matcher, rooted at its directory (`None`: no such file).
fn read_ignore(file: &Path) -> Option<Gitignore> {
    if !file.is_file() {
        return None;
    }
    let (matcher, _) = Gitignore::new(file);
    Some(matcher)
}

/// `.git/info/exclude`, whose patterns are relative to the working tree's root.
fn read_exclude(root: &Path) -> Option<Gitignore> {
    let file = root.join(".git/info/exclude");
    if !file.is_file() {
        return None;
    }
    let mut builder = ignore::gitignore::GitignoreBuilder::new(root);
    builder.add(file);
    builder.build().ok()
}

/// Changes never applied, whatever the confinement: `.git/`, `.rectify/`, symlinks, devices.
fn never(change: &Change) -> Option<&'static str> {
    let first = change.path.components().next();
    if matches!(first, Some(Component::Normal(n)) if n == ".git" || n == ".rectify") {
        return Some("inside `.git/` or `.rectify/`, which agents may not change");
    }
    match &change.kind {
        ChangeKind::Symlink { .. } => Some("as a symbolic link, which rectify never applies"),
        ChangeKind::Special => Some("as a fifo, socket or device, which rectify never applies"),
        ChangeKind::Write { source, .. } if oversized_ignore_file(&change.path, source) => Some(
            "as an ignore file over 256 KiB, which rectify never applies (every later walk of \
             the tree would compile it, at about 150 bytes of memory per byte)",
        ),
        _ => None,
    }
}

/// The largest `.gitignore` an agent may write: real ones are a few KiB, and the `ignore`
/// crate turns each byte into about 150 bytes of matcher at every walk of the tree.
pub(crate) const IGNORE_FILE_LIMIT: u64 = 256 * 1024;

/// Whether `path` is a `.gitignore` whose new content (`source`) is over
/// [`IGNORE_FILE_LIMIT`] (or cannot be measured).
fn oversized_ignore_file(path: &Path, source: &Path) -> bool {
    path.file_name().is_some_and(|n| n == ".gitignore")
        && std::fs::symlink_metadata(source).map_or(true, |m| m.len() > IGNORE_FILE_LIMIT)
}

/// Another unit's claim on `rel`: it runs and declared it, or it declared it and `rel` is not
/// among the paths this unit may change (`allowed`); or it wrote `rel` after `since`.
fn conflict(log: &Log, unit: &str, rel: &Path, since: u64, allowed: bool) -> Option<Diagnostic> {
    let shown = rel.display().to_string();
    let message = match (log.claims.get(rel), log.writes.get(rel)) {
        (Some((owner, true)), _) if owner != unit => format!(
            "`{shown}` is the output of `{owner}`, running at the same time; this change was not applied"
        ),
        (Some((owner, false)), _) if owner != unit && !allowed => {
            format!("`{shown}` is the output of `{owner}`; this change was not applied")
        }
        (_, Some((tick, writer))) if writer != unit && *tick > since => format!(
            "`{shown}` was also changed by `{writer}`, running at the same time; this change was not applied"
        ),
        _ => return None,
    };
    Some(
        Diagnostic::error("flow.conflict", Location::root(), message)
            .expected(format!("no other unit's change to `{shown}`"))
            .received(shown)
            .source("isolation"),
    )
}

fn stamp(log: &mut Log, unit: &str, rel: PathBuf) {
    log.tick += 1;
    let tick = log.tick;
    log.writes.insert(rel, (tick, unit.to_owned()));
}

/// A change refused: an error for the unit, or a warning.
fn refused(path: &str, verb: &str, why: &str, error: bool) -> Diagnostic {
    let message = format!("`{path}` was {verb} {why}; the change was not applied");
    let d = if error {
        Diagnostic::error("flow.confinement", Location::root(), message)
    } else {
        Diagnostic::warning("flow.confinement", Location::root(), message)
    };
    d.expected("changes only to the declared outputs and `may_write` paths")
        .received(path.to_owned())
        .source("confinement")
}

/// A change outside the outputs, applied (`confine: report`).
fn outside(path: &str, verb: &str) -> Diagnostic {
    Diagnostic::warning(
        "flow.confinement",
        Location::root(),
        format!("`{path}` was {verb} outside the step's outputs"),
    )
    .expected("changes only to the declared outputs and `may_write` paths")
    .received(path.to_owned())
    .source("confinement")
}
