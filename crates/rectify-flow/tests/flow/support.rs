//! A workflow in a temporary directory, with small shell scripts as command agents that log
//! every prompt they receive (outside the working directory, so confinement ignores it).

use std::path::PathBuf;
use std::sync::Arc;

use rectify_flow::{RunOptions, RunSummary, Store, load};

pub struct Fixture {
    _dir: tempfile::TempDir,
    /// Workflow files, schemas, agents and scripts.
    pub root: PathBuf,
    /// The working directory of runs.
    pub work: PathBuf,
    /// Where agents log their prompts.
    pub log: PathBuf,
}

impl Fixture {
    pub fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let work = root.join("work");
        let log = root.join("log");
        std::fs::create_dir_all(&work).unwrap();
        std::fs::create_dir_all(&log).unwrap();
        std::fs::create_dir_all(root.join("agents")).unwrap();
        Fixture {
            _dir: dir,
            root,
            work,
            log,
        }
    }

    pub fn file(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    /// A script agent `name`: `$n` is its call number (1-based, taken under a lock: items run in
    /// parallel), the prompt is saved as
    /// `log/NAME-N.txt`, then `body` runs in the working directory.
    pub fn script(&self, name: &str, body: &str) {
        let log = self.log.display();
        let script = format!(
            "#!/bin/sh\nwhile ! mkdir '{log}/{name}.lock' 2>/dev/null; do sleep 0.01; done\nn=$(cat '{log}/{name}.count' 2>/dev/null || echo 0)\nn=$((n+1))\necho $n > '{log}/{name}.count'\nrmdir '{log}/{name}.lock'\ncat > '{log}/{name}-'$n'.txt'\nLOG='{log}'\n{body}\n"
        );
        self.file(&format!("{name}.sh"), &script);
        self.file(
            &format!("agents/{name}.md"),
            &format!("---\nname: {name}\nprovider: {name}\n---\nYou are the {name}.\n"),
        );
    }

    /// The `providers:` and `agents:` entries for script agents.
    pub fn agents_yaml(&self, names: &[&str]) -> String {
        let mut providers = String::from("providers:\n");
        let mut agents = String::from("agents:\n");
        for n in names {
            let script = self.root.join(format!("{n}.sh"));
            providers.push_str(&format!(
                "  {n}: {{kind: command, command: [sh, \"{}\"]}}\n",
                script.display()
            ));
            agents.push_str(&format!("  {n}: agents/{n}.md\n"));
        }
        format!("{providers}{agents}")
    }

    pub fn prompt(&self, name: &str, n: u32) -> String {
        std::fs::read_to_string(self.log.join(format!("{name}-{n}.txt"))).unwrap_or_default()
    }

    pub fn calls(&self, name: &str) -> u32 {
        std::fs::read_to_string(self.log.join(format!("{name}.count")))
            .map(|s| s.trim().parse().unwrap_or(0))
            .unwrap_or(0)
    }

    pub fn workflow(&self, yaml: &str) -> PathBuf {
        self.file("workflow.yaml", yaml)
    }

    pub fn run(&self, inputs: &[(&str, &str)]) -> (RunSummary, Arc<Store>) {
        self.run_on(Arc::new(Store::open(&self.work).unwrap()), inputs)
    }

    /// Runs the workflow with `store` (the file store or one in memory).
    pub fn run_on(&self, store: Arc<Store>, inputs: &[(&str, &str)]) -> (RunSummary, Arc<Store>) {
        let wf = load(&self.root.join("workflow.yaml")).unwrap_or_else(|e| panic!("{e}"));
        let mut options = RunOptions::new(&self.work);
        options.inputs = inputs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        options.max_parallel = 4;
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let summary = rt
            .block_on(rectify_flow::run(wf, Arc::clone(&store), options))
            .unwrap();
        (summary, store)
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.work.join(rel)).unwrap_or_default()
    }
}

pub fn step<'a>(summary: &'a RunSummary, id: &str) -> &'a rectify_flow::summary::StepSummary {
    summary
        .steps
        .iter()
        .find(|s| s.id == id)
        .unwrap_or_else(|| panic!("no step {id} in {summary:#?}"))
}
