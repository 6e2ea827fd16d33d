//! Workflows on a real Restate server (issue 17): `rectify serve --restate` endpoints and
//! `rectify run --on restate://…`. The server is the npm package's binary, installed by
//! `scripts/restate.sh`; `scripts/test.sh` passes its path in `RECTIFY_RESTATE_SERVER` (without
//! it, these tests say so and pass: nothing to run them against).

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// One Restate test at a time: each starts its own server (or three), and on a 2-core machine
/// several at once starve each other past the waits' limits.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The server binary, or `None` (the test then only says why it did not run), with the lock
/// that keeps the Restate tests one at a time.
fn server_binary() -> Option<(PathBuf, std::sync::MutexGuard<'static, ()>)> {
    let path = std::env::var_os("RECTIFY_RESTATE_SERVER").map(PathBuf::from);
    if path.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "RECTIFY_RESTATE_SERVER is not set in CI: scripts/test.sh sets it"
        );
        eprintln!(
            "RECTIFY_RESTATE_SERVER is not set (scripts/restate.sh installs the server): not run"
        );
    }
    let guard = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    path.map(|p| (p, guard))
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A child process killed when dropped.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A Restate server on free ports with its data in a temporary directory.
struct Server {
    process: Option<Killed>,
    binary: PathBuf,
    data: tempfile::TempDir,
    ingress: u16,
    admin: u16,
    fabric: u16,
}

impl Server {
    fn start(binary: &Path) -> Server {
        let mut server = Server {
            process: None,
            binary: binary.to_owned(),
            data: tempfile::tempdir().unwrap(),
            ingress: free_port(),
            admin: free_port(),
            fabric: free_port(),
        };
        // Ports found free can be taken by another test before the server binds them: a
        // server that exits on start is started again on new ports and fresh data.
        for _ in 0..3 {
            if server.try_spawn() {
                return server;
            }
            (server.ingress, server.admin, server.fabric) = (free_port(), free_port(), free_port());
            server.data = tempfile::tempdir().unwrap();
        }
        panic!("the Restate server exited on start:\n{}", server.log_tail());
    }

    /// Starts the server process (again) on the same ports and data, and waits for it.
    fn spawn(&mut self) {
        let answered = self.try_spawn();
        assert!(
            answered,
            "the Restate server exited on start:\n{}",
            self.log_tail()
        );
    }

    /// Starts the server and waits until it answers (true), or until it exits (false: a
    /// port it was given was taken in the meantime, for example). Panics, with the end of
    /// its log, when it neither answers nor exits within 180 s.
    fn try_spawn(&mut self) -> bool {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.data.path().join("server.log"))
            .unwrap();
        let (ingress, admin, fabric) = (self.ingress, self.admin, self.fabric);
        let child = Command::new(&self.binary)
            .args(["--no-logo", "--listen-mode", "tcp", "--base-dir"])
            .arg(self.data.path())
            .env(
                "RESTATE_INGRESS__BIND_ADDRESS",
                format!("127.0.0.1:{ingress}"),
            )
            .env("RESTATE_ADMIN__BIND_ADDRESS", format!("127.0.0.1:{admin}"))
            .env("RESTATE_BIND_ADDRESS", format!("127.0.0.1:{fabric}"))
            .env(
                "RESTATE_ADVERTISED_ADDRESS",
                format!("http://127.0.0.1:{fabric}/"),
            )
            .env("RESTATE_NODE_NAME", "rectify-test")
            .env("RESTATE_DISABLE_TELEMETRY", "true")
            .env("RESTATE_LOG_DISABLE_ANSI_CODES", "true")
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap();
        self.process = Some(Killed(child));
        let start = Instant::now();
        loop {
            if http("GET", admin, "/health", "").is_some_and(|(status, _)| status == 200) {
                return true;
            }
            let exited = self
                .process
                .as_mut()
                .is_some_and(|p| p.0.try_wait().ok().flatten().is_some());
            if exited {
                self.process = None;
                return false;
            }
            assert!(
                start.elapsed() < Duration::from_secs(180),
                "waited 180 s for the Restate server to answer:\n{}",
                self.log_tail()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The last lines of the server's log.
    fn log_tail(&self) -> String {
        let log = std::fs::read_to_string(self.data.path().join("server.log")).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(40)..].join("\n")
    }

    /// kill -9 the server process.
    fn kill(&mut self) {
        self.process = None;
    }

    /// Registers an endpoint (Restate discovers its services).
    fn register(&self, endpoint: u16) {
        let body = format!(r#"{{"uri": "http://127.0.0.1:{endpoint}", "force": true}}"#);
        let (status, text) = http("POST", self.admin, "/deployments", &body).unwrap();
        assert!(
            (200..300).contains(&status),
            "registration: {status} {text}"
        );
    }
}

/// Three Restate nodes in one cluster (replicated metadata and log, replication 2), each with
/// every role, as `docs/distributed.md` describes.
struct Cluster {
    nodes: Vec<Option<Killed>>,
    _data: tempfile::TempDir,
    admin: Vec<u16>,
    ingress: Vec<u16>,
}

impl Cluster {
    fn start(binary: &Path) -> Cluster {
        let data = tempfile::tempdir().unwrap();
        let fabric: Vec<u16> = (0..3).map(|_| free_port()).collect();
        let admin: Vec<u16> = (0..3).map(|_| free_port()).collect();
        let ingress: Vec<u16> = (0..3).map(|_| free_port()).collect();
        let addresses: Vec<String> = fabric
            .iter()
            .map(|p| format!("\"http://127.0.0.1:{p}/\""))
            .collect();
        let mut nodes = Vec::new();
        for i in 0..3 {
            let dir = data.path().join(format!("n{i}"));
            std::fs::create_dir_all(&dir).unwrap();
            let config = format!(
                "node-name = \"n{i}\"\ncluster-name = \"rectify-test\"\nauto-provision = {}\ndefault-replication = 2\nadvertised-address = \"http://127.0.0.1:{f}/\"\nbind-address = \"127.0.0.1:{f}\"\nroles = [\"worker\", \"admin\", \"log-server\", \"metadata-server\", \"http-ingress\"]\n\n[metadata-client]\naddresses = [{}]\n\n[bifrost]\ndefault-provider = \"replicated\"\n\n[admin]\nbind-address = \"127.0.0.1:{}\"\n\n[ingress]\nbind-address = \"127.0.0.1:{}\"\n",
                i == 0,
                addresses.join(", "),
                admin[i],
                ingress[i],
                f = fabric[i],
            );
            std::fs::write(dir.join("node.toml"), config).unwrap();
            let log = std::fs::File::create(dir.join("node.log")).unwrap();
            let child = Command::new(binary)
                .args(["--no-logo", "--listen-mode", "tcp", "--config-file"])
                .arg(dir.join("node.toml"))
                .arg("--base-dir")
                .arg(&dir)
                .env("RESTATE_DISABLE_TELEMETRY", "true")
                .stdout(log.try_clone().unwrap())
                .stderr(log)
                .spawn()
                .unwrap();
            nodes.push(Some(Killed(child)));
        }
        for &port in &admin {
            wait_until("a cluster node answers", Duration::from_secs(180), || {
                http("GET", port, "/health", "").is_some_and(|(status, _)| status == 200)
            });
        }
        Cluster {
            nodes,
            _data: data,
            admin,
            ingress,
        }
    }
}

/// `rectify serve --restate` on `port`, started and listening.
fn endpoint(port: u16, dir: &Path) -> Killed {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("rectify"))
        .args(["serve", "--restate", "--bind"])
        .arg(format!("127.0.0.1:{port}"))
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    assert!(line.contains("listening on"), "{line}");
    // Keep reading (and dropping) what it prints, so it never blocks on a full pipe.
    std::thread::spawn(move || {
        let mut sink = Vec::new();
        let _ = stderr.read_to_end(&mut sink);
    });
    Killed(child)
}

/// One HTTP/1.0 request (so the answer is not chunked); `None` when nothing answers.
fn http(method: &str, port: u16, path: &str, body: &str) -> Option<(u16, String)> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .ok()?;
    // A handler without input wants no content type.
    let kind = if body.is_empty() {
        ""
    } else {
        "Content-Type: application/json\r\n"
    };
    let request = format!(
        "{method} {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n{kind}Accept: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    let status = response.split(' ').nth(1)?.parse().ok()?;
    let text = response.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    Some((status, text.to_owned()))
}

fn wait_until(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < limit, "waited {limit:?} for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The agent: logs `start STEP` and `end STEP` around every call; the first call of `a2`
/// takes 30 s (the endpoint is killed during it). `LOGS` is a directory beside the working
/// directory ([`logs`]): agents work in their own views of the tree, so what a test watches
/// while an agent runs is kept outside it.
const AGENT: &str = r#"set -eu
prompt=$(cat)
echo "start $RECTIFY_STEP" >> LOGS/calls.log
echo "$PPID" >> LOGS/endpoints.log
if [ "$RECTIFY_STEP" = a2 ] && [ ! -e LOGS/slow.done ]; then
  touch LOGS/slow.done
  sleep 30
fi
name=$(printf '%s\n' "$prompt" | grep -o 'TASK=[a-z0-9]*' | head -n1)
pad=""
if [ "$RECTIFY_STEP" = a1 ] && [ -e big.on ]; then
  pad=$(head -c 300000 /dev/zero | tr '\0' x)
fi
echo "end $RECTIFY_STEP" >> LOGS/calls.log
printf 'Here it is:\n```json\n{"id": "%s", "n": 1, "pad": "%s",}\n```\n' "${name#TASK=}" "$pad"
"#;

/// Where the agent of [`workdir`] logs: beside the working directory.
fn logs(dir: &Path) -> PathBuf {
    let mut name = dir.as_os_str().to_owned();
    name.push(".logs");
    PathBuf::from(name)
}

fn workdir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let mut workflow = String::from(
        "name: journaled\nproviders:\n  sh: {kind: command, command: [sh, agent.sh]}\ndefaults: {provider: sh}\nagents:\n  worker: worker.md\nsteps:\n",
    );
    for i in 1..=4 {
        let needs = if i > 1 {
            format!("    needs: [a{}]\n", i - 1)
        } else {
            String::new()
        };
        let _ = write!(
            workflow,
            "  - id: a{i}\n{needs}    agent: worker\n    prompt: \"TASK=a{i}\"\n    answer: {{format: json, schema: item.schema.json, save: answers/a{i}.json}}\n"
        );
    }
    std::fs::write(p.join("workflow.yaml"), workflow).unwrap();
    std::fs::create_dir_all(logs(p)).unwrap();
    let agent = AGENT.replace("LOGS/", &format!("'{}'/", logs(p).display()));
    std::fs::write(p.join("agent.sh"), agent).unwrap();
    std::fs::write(
        p.join("item.schema.json"),
        r#"{"type": "object", "required": ["id", "n"], "properties": {"id": {"type": "string"}, "n": {"type": "integer"}}}"#,
    )
    .unwrap();
    std::fs::write(
        p.join("worker.md"),
        "---\nname: worker\ndescription: does the task\n---\nYou are the worker.\n",
    )
    .unwrap();
    std::fs::create_dir(p.join("answers")).unwrap();
    dir
}

/// a1, then a person decides (`gate`), then a2; no slow call.
fn gated_workdir() -> tempfile::TempDir {
    let work = workdir();
    let workflow = std::fs::read_to_string(work.path().join("workflow.yaml")).unwrap();
    let cut = workflow.find("  - id: a3").unwrap();
    let workflow = format!(
        "{}  - id: gate\n    needs: [a1]\n    human: \"Is a1 right?\"\n",
        &workflow[..cut]
    )
    .replace(
        "  - id: a2\n    needs: [a1]",
        "  - id: a2\n    needs: [gate]",
    );
    std::fs::write(work.path().join("workflow.yaml"), &workflow).unwrap();
    std::fs::write(logs(work.path()).join("slow.done"), "").unwrap();
    work
}

/// `rectify run workflow.yaml --on` the ingress on `ingress`, in the background, once its
/// agent is in the middle of a2's first call (the moment the tests kill something).
fn run_until_a2(dir: &Path, run_id: &str, ingress: u16) -> Child {
    run_until_a2_with(dir, run_id, ingress, &[])
}

/// [`run_until_a2`] with more arguments.
fn run_until_a2_with(dir: &Path, run_id: &str, ingress: u16, more: &[&str]) -> Child {
    let run = Command::new(assert_cmd::cargo::cargo_bin("rectify"))
        .args([
            "run",
            "workflow.yaml",
            "--output",
            "json",
            "--run-id",
            run_id,
        ])
        .args(more)
        .arg("--on")
        .arg(format!("restate://127.0.0.1:{ingress}"))
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_until("a2's first call", Duration::from_secs(180), || {
        calls(dir).contains(&"start a2".to_owned())
    });
    run
}

/// Waits for a `run --on --output json` started by [`run_until_a2`]: it exits 0 with a
/// completed run's summary, which is returned.
fn completed(run: Child) -> Value {
    let output = run.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(0),
        "stdout: {stdout}\nstderr: {stderr}"
    );
    let summary: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(summary["status"], "completed", "{summary:#}");
    summary
}

fn calls(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(logs(dir).join("calls.log"))
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn count(log: &[String], line: &str) -> usize {
    log.iter().filter(|l| *l == line).count()
}

#[test]
fn a_run_survives_its_endpoint_killed_mid_step_without_repeating_a_journaled_call() {
    let Some((binary, _serial)) = server_binary() else {
        return;
    };
    let server = Server::start(&binary);
    let work = workdir();
    let port = free_port();
    let first = endpoint(port, work.path());
    server.register(port);
    let run = run_until_a2(work.path(), "journaled-1", server.ingress);
    // kill -9 the endpoint in the middle of a2's call, then start another on the same port.
    drop(first);
    let _second = endpoint(port, work.path());
    let summary = completed(run);
    let steps = summary["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 4);
    assert!(steps.iter().all(|s| s["status"] == "done"), "{summary:#}");
    for i in 1..=4 {
        let answer: Value = serde_json::from_str(
            &std::fs::read_to_string(work.path().join(format!("answers/a{i}.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(answer["id"], format!("a{i}"));
    }
    let log = calls(work.path());
    // a1 finished before the kill: its call is in the journal and was not made again.
    assert_eq!(count(&log, "start a1"), 1, "{log:?}");
    // a2 was cut: its call was not journaled, so it was made again (once).
    assert_eq!(count(&log, "start a2"), 2, "{log:?}");
    assert_eq!(count(&log, "start a3"), 1, "{log:?}");
    assert_eq!(count(&log, "start a4"), 1, "{log:?}");
}

/// The four steps of [`workdir`] made independent: they run at once.
fn parallel_workdir() -> tempfile::TempDir {
    let work = workdir();
    let path = work.path().join("workflow.yaml");
    let workflow = std::fs::read_to_string(&path).unwrap();
    let mut kept = String::new();
    for line in workflow
        .lines()
        .filter(|l| !l.trim_start().starts_with("needs:"))
    {
        kept.push_str(line);
        kept.push('\n');
    }
    let workflow = kept;
    std::fs::write(path, workflow).unwrap();
    work
}

#[test]
fn parallel_steps_run_at_once_on_restate_and_survive_the_endpoint_killed_mid_step() {
    let Some((binary, _serial)) = server_binary() else {
        return;
    };
    let server = Server::start(&binary);
    let work = parallel_workdir();
    let port = free_port();
    let first = endpoint(port, work.path());
    server.register(port);
    let run = run_until_a2_with(
        work.path(),
        "parallel-1",
        server.ingress,
        &["--max-parallel", "4"],
    );
    // The other three calls were made beside a2's (one round), and ended.
    wait_until("the calls beside a2's", Duration::from_secs(60), || {
        let log = calls(work.path());
        ["end a1", "end a3", "end a4"]
            .iter()
            .all(|l| log.contains(&(*l).to_owned()))
    });
    std::thread::sleep(Duration::from_millis(500));
    drop(first);
    let _second = endpoint(port, work.path());
    let summary = completed(run);
    let steps = summary["steps"].as_array().unwrap();
    assert!(steps.iter().all(|s| s["status"] == "done"), "{summary:#}");
    let log = calls(work.path());
    // All four ran at once: the first four calls made are one each (a2's first call did not
    // end before the endpoint was killed; run one after the other, a3 and a4 would have
    // started only after it).
    let first: Vec<&str> = log
        .iter()
        .filter(|l| l.starts_with("start"))
        .take(4)
        .map(String::as_str)
        .collect();
    for i in 1..=4 {
        assert!(first.contains(&format!("start a{i}").as_str()), "{log:?}");
    }
    // A round is journaled in the order of its units (a1, a2, a3, a4): a1's answer was, so
    // it was not asked again; a2 was cut, so it was asked again; a3 and a4 had answered but
    // were not journaled yet (they come after a2), so they were asked again, once.
    assert_eq!(count(&log, "start a1"), 1, "{log:?}");
    for i in 2..=4 {
        assert_eq!(count(&log, &format!("start a{i}")), 2, "a{i}: {log:?}");
    }
    // The same results as a local run of the same workflow.
    let local = parallel_workdir();
    std::fs::write(logs(local.path()).join("slow.done"), "").unwrap();
    let (code, _, stderr) = rectify_in(
        local.path(),
        &["run", "workflow.yaml", "--max-parallel", "4"],
    );
    assert_eq!(code, Some(0), "{stderr}");
    for i in 1..=4 {
        let file = format!("answers/a{i}.json");
        assert_eq!(
            std::fs::read_to_string(work.path().join(&file)).unwrap(),
            std::fs::read_to_string(local.path().join(&file)).unwrap(),
            "{file}"
        );
    }
}

#[test]
fn a_run_survives_the_restate_server_killed_mid_step() {
    let Some((binary, _serial)) = server_binary() else {
        return;
    };
    let mut server = Server::start(&binary);
    let work = workdir();
    let port = free_port();
    let _endpoint = endpoint(port, work.path());
    server.register(port);
    let run = run_until_a2(work.path(), "journaled-2", server.ingress);
    // kill -9 the server in the middle of a2's call (the client's connection breaks with it),
    // then start it again on the same data.
    server.kill();
    server.spawn();
    completed(run);
    let log = calls(work.path());
    assert_eq!(count(&log, "start a1"), 1, "{log:?}");
    assert!((1..=2).contains(&count(&log, "start a2")), "{log:?}");
    assert_eq!(count(&log, "start a3"), 1, "{log:?}");
    assert_eq!(count(&log, "start a4"), 1, "{log:?}");
}

/// `rectify ARGS` in `dir`, to its end: (exit code, stdout, stderr).
fn rectify_in(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(assert_cmd::cargo::cargo_bin("rectify"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A server, an endpoint, and the gated workflow run to its pause at `gate`.
struct Gated {
    _server: Server,
    work: tempfile::TempDir,
    endpoint: Killed,
    port: u16,
    on: String,
    /// What `run --on` printed at the pause.
    summary: Value,
}

fn run_to_gate(binary: &Path, run_id: &str) -> Gated {
    let server = Server::start(binary);
    // a1, then a person decides, then a2.
    let work = gated_workdir();
    let port = free_port();
    let endpoint = endpoint(port, work.path());
    server.register(port);
    let on = format!("restate://127.0.0.1:{}", server.ingress);
    let args = [
        "run",
        "workflow.yaml",
        "--run-id",
        run_id,
        "--output",
        "json",
        "--on",
        &on,
    ];
    let (code, stdout, stderr) = rectify_in(work.path(), &args);
    assert_eq!(
        code,
        Some(3),
        "a pause exits 3 as a local run does\n{stdout}\n{stderr}"
    );
    let summary: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(summary["status"], "waiting", "{summary:#}");
    assert_eq!(summary["waiting"]["step"], "gate", "{summary:#}");
    Gated {
        _server: server,
        work,
        endpoint,
        port,
        on,
        summary,
    }
}

#[test]
fn a_human_pause_is_a_durable_promise_that_survives_the_endpoint_and_is_approved_with_resume_on() {
    let Some((binary, _serial)) = server_binary() else {
        return;
    };
    let Gated {
        _server,
        work,
        endpoint: first,
        port,
        on,
        summary,
    } = run_to_gate(&binary, "gated");
    assert_eq!(summary["waiting"]["message"], "Is a1 right?", "{summary:#}");
    let status = ["status", "gated", "--output", "json", "--on", &on];
    let (code, stdout, stderr) = rectify_in(work.path(), &status);
    assert_eq!(code, Some(0), "{stderr}");
    let shown: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(shown["status"], "waiting", "{shown:#}");
    assert_eq!(shown["waiting"]["step"], "gate", "{shown:#}");
    let unknown = ["status", "never-started", "--on", &on];
    let (code, _, stderr) = rectify_in(work.path(), &unknown);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("no run `never-started`"), "{stderr}");
    // The pause is Restate's: the endpoint that ran the run is gone, another decides it. The
    // workflow file changes meanwhile: the run goes on with the text it started with.
    std::fs::write(
        work.path().join("workflow.yaml"),
        "name: [this is not the workflow\n",
    )
    .unwrap();
    drop(first);
    let _second = endpoint(port, work.path());
    let resume = [
        "resume",
        "gated",
        "--approve",
        "--output",
        "json",
        "--on",
        &on,
    ];
    let (code, stdout, stderr) = rectify_in(work.path(), &resume);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    let summary: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(summary["status"], "completed", "{summary:#}");
    let ids: Vec<&str> = summary["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    // In the workflow file's order (the gate is its last step), as a local run lists them.
    assert_eq!(ids, ["a1", "a2", "gate"], "{summary:#}");
    let gate = &summary["steps"][2];
    assert_eq!(gate["status"], "done", "{summary:#}");
    assert_eq!(gate["verdict"], "APPROVED", "{summary:#}");
    let log = calls(work.path());
    assert_eq!(
        log,
        ["start a1", "end a1", "start a2", "end a2"],
        "a1 was not asked again"
    );
    // Nothing waits any more: a second decision is refused.
    let (code, _, stderr) = rectify_in(work.path(), &resume);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("does not wait"), "{stderr}");
}

#[test]
fn an_edit_sent_with_resume_on_replaces_what_the_gate_shows() {
    let Some((binary, _serial)) = server_binary() else {
        return;
    };
    // Every part bound: what `..` leaves out is dropped here (the endpoint would be killed).
    let Gated {
        _server,
        work,
        endpoint: _endpoint,
        on,
        ..
    } = run_to_gate(&binary, "edited");
    // The person's version, in a file outside the working directory (their machine).
    let theirs = tempfile::tempdir().unwrap();
    let mine = theirs.path().join("a1.json");
    std::fs::write(&mine, r#"{"id": "by a person", "n": 7}"#).unwrap();
    let edit = format!("answers/a1.json={}", mine.display());
    let resume = [
        "resume", "edited", "--edit", &edit, "--output", "json", "--on", &on,
    ];
    let (code, stdout, stderr) = rectify_in(work.path(), &resume);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    let summary: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(summary["status"], "completed", "{summary:#}");
    let saved: Value = serde_json::from_str(
        &std::fs::read_to_string(work.path().join("answers/a1.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(saved["id"], "by a person");
    assert_eq!(
        summary["steps"][2]["verdict"], "EDITED_BY_PERSON",
        "{summary:#}"
    );
}

/// A round-robin TCP balancer on a free port in front of `backends` (Restate sends a service's
/// invocations to one URI; several endpoints stand behind it). Returns its port.
fn balancer(backends: Vec<u16>) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for (i, conn) in listener.incoming().enumerate() {
            let (Ok(client), Ok(backend)) = (
                conn,
                TcpStream::connect(("127.0.0.1", backends[i % backends.len()])),
            ) else {
                continue;
            };
            let _ = (client.set_nodelay(true), backend.set_nodelay(true));
            let (Ok(mut c2), Ok(mut b2)) = (client.try_clone(), backend.try_clone()) else {
                continue;
            };
            let (mut c1, mut b1) = (client, backend);
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut c1, &mut b1);
                let _ = b1.shutdown(std::net::Shutdown::Write);
            });
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut b2, &mut c2);
                let _ = c2.shutdown(std::net::Shutdown::Write);
            });
        }
    });
    port
}

#[test]
fn two_endpoints_share_twenty_concurrent_runs() {
    let Some((binary, _serial)) = server_binary() else {
        return;
    };
    let server = Server::start(&binary);
    let work = workdir();
    std::fs::write(logs(work.path()).join("slow.done"), "").unwrap();
    let (p1, p2) = (free_port(), free_port());
    let e1 = endpoint(p1, work.path());
    let e2 = endpoint(p2, work.path());
    let front = balancer(vec![p1, p2]);
    server.register(front);
    let on = format!("restate://127.0.0.1:{}", server.ingress);
    let runs: Vec<_> = (0..20)
        .map(|i| {
            Command::new(assert_cmd::cargo::cargo_bin("rectify"))
                .args([
                    "run",
                    "workflow.yaml",
                    "--output",
                    "json",
                    "--on",
                    &on,
                    "--run-id",
                ])
                .arg(format!("shared-{i}"))
                .current_dir(work.path())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for run in runs {
        let out = run.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let summary: Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(summary["status"], "completed", "{summary:#}");
    }
    // A run id names one run: starting it again is refused, not answered with the old run.
    let again = ["run", "workflow.yaml", "--run-id", "shared-0", "--on", &on];
    let (code, _, stderr) = rectify_in(work.path(), &again);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("already exists"), "{stderr}");
    // 80 calls, each made once, and both endpoints made some of them.
    let log = calls(work.path());
    assert_eq!(
        log.iter().filter(|l| l.starts_with("start ")).count(),
        80,
        "{log:?}"
    );
    let pids = std::fs::read_to_string(logs(work.path()).join("endpoints.log")).unwrap();
    for endpoint in [&e1, &e2] {
        let pid = endpoint.0.id().to_string();
        assert!(
            pids.lines().any(|l| l == pid),
            "endpoint {pid} made no call: {pids}"
        );
    }
}

#[test]
fn an_answer_too_large_for_the_journal_is_kept_by_hash_and_read_back_on_replay() {
    let Some((binary, _serial)) = server_binary() else {
        return;
    };
    let server = Server::start(&binary);
    let work = workdir();
    std::fs::write(work.path().join("big.on"), "").unwrap();
    let port = free_port();
    let first = endpoint(port, work.path());
    server.register(port);
    let run = run_until_a2(work.path(), "big", server.ingress);
    // The replay on another endpoint reads a1's answer back from the artifact store.
    drop(first);
    let _second = endpoint(port, work.path());
    completed(run);
    let log = calls(work.path());
    assert_eq!(count(&log, "start a1"), 1, "{log:?}");
    let saved: Value = serde_json::from_str(
        &std::fs::read_to_string(work.path().join("answers/a1.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(saved["pad"].as_str().unwrap().len(), 300_000);
    let stored: Vec<u64> = std::fs::read_dir(work.path().join(".rectify/artifacts"))
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .collect();
    assert!(stored.iter().any(|&n| n > 300_000), "{stored:?}");
    // No journal entry of the run holds the 300 KB.
    let query = r#"{"query": "SELECT MAX(j.raw_length) AS largest FROM sys_journal j JOIN sys_invocation i ON j.id = i.id WHERE i.target_service_key = 'big' AND i.target_handler_name = 'run'"}"#;
    let (status, text) = http("POST", server.admin, "/query", query).unwrap();
    assert_eq!(status, 200, "{text}");
    let largest = serde_json::from_str::<Value>(&text).unwrap()["rows"][0]["largest"]
        .as_u64()
        .unwrap();
    assert!(
        largest < 64 * 1024,
        "largest journal entry: {largest} bytes"
    );
}

#[test]
fn a_run_survives_one_node_of_a_three_node_cluster_killed_mid_step() {
    let Some((binary, _serial)) = server_binary() else {
        return;
    };
    let mut cluster = Cluster::start(&binary);
    let work = workdir();
    let port = free_port();
    let _endpoint = endpoint(port, work.path());
    let body = format!(r#"{{"uri": "http://127.0.0.1:{port}"}}"#);
    // Registration may wait for the cluster to finish provisioning.
    wait_until(
        "the endpoint's registration",
        Duration::from_secs(180),
        || {
            http("POST", cluster.admin[0], "/deployments", &body)
                .is_some_and(|(status, _)| (200..300).contains(&status))
        },
    );
    // The other nodes learn of the deployment from the cluster's metadata a moment later.
    wait_until(
        "the service known to node 1's ingress",
        Duration::from_secs(180),
        || {
            http("POST", cluster.ingress[1], "/RectifyRun/probe/status", "")
                .is_some_and(|(status, _)| status == 200)
        },
    );
    let run = run_until_a2(work.path(), "clustered", cluster.ingress[1]);
    // kill -9 the node that provisioned the cluster while a2's agent works.
    cluster.nodes[0] = None;
    completed(run);
    let log = calls(work.path());
    for step in ["a1", "a3", "a4"] {
        assert_eq!(count(&log, &format!("start {step}")), 1, "{log:?}");
    }
}

#[test]
fn the_feature_example_runs_on_restate_paused_for_approval_and_approved() {
    let Some((binary, _serial)) = server_binary() else {
        return;
    };
    let server = Server::start(&binary);
    let ex = crate::workflows::Example::new("feature");
    let port = free_port();
    let _endpoint = endpoint(port, &ex.path);
    server.register(port);
    let on = format!("restate://127.0.0.1:{}", server.ingress);
    let workflow = ex.file("workflow.yaml");
    let workdir = ex.path.to_string_lossy().into_owned();
    let run = [
        "run",
        workflow.to_str().unwrap(),
        "--workdir",
        &workdir,
        "--run-id",
        "feat",
        "--output",
        "json",
        "--on",
        &on,
    ];
    let (code, stdout, stderr) = rectify_in(&ex.path, &run);
    assert_eq!(code, Some(3), "waiting for a person\n{stdout}\n{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["waiting"]["step"], "approve", "{v:#}");
    // The planner's broken cross-file reference was repaired by the repair agent, as locally.
    assert_eq!(ex.prompts("repairer").len(), 1);
    assert!(!ex.read("specs/feat/tasks.yaml").contains("phase-3"));
    assert!(
        ex.prompts("coder").is_empty(),
        "nothing implemented before the approval"
    );
    let resume = [
        "resume",
        "feat",
        "--approve",
        "--workdir",
        &workdir,
        "--output",
        "json",
        "--on",
        &on,
    ];
    let (code, stdout, stderr) = rectify_in(&ex.path, &resume);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["status"], "completed", "{v:#}");
    let implemented: Vec<&Value> = v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["id"].as_str().unwrap().starts_with("implement["))
        .collect();
    assert_eq!(implemented.len(), 4, "{v:#}");
    assert!(
        implemented
            .iter()
            .all(|s| s["status"] == "done" || s["status"] == "done_with_warnings"),
        "{v:#}"
    );
    // Each producer asked once: nothing before the pause was asked again after it.
    for role in ["analyst", "researcher", "planner"] {
        assert_eq!(ex.prompts(role).len(), 1, "{role}");
    }
}

#[test]
fn a_configuration_mistake_exits_2_before_restate_is_called() {
    let work = workdir();
    std::fs::write(
        work.path().join("workflow.yaml"),
        "name: broken\nsteps:\n  - id: x\n    needs: [nowhere]\n",
    )
    .unwrap();
    // Nothing listens on this port: the workflow is refused before any connection.
    let out = Command::new(assert_cmd::cargo::cargo_bin("rectify"))
        .args(["run", "workflow.yaml", "--on"])
        .arg(format!("restate://127.0.0.1:{}", free_port()))
        .current_dir(work.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn an_unreachable_restate_is_a_clear_error() {
    let work = workdir();
    let port = free_port();
    let out = Command::new(assert_cmd::cargo::cargo_bin("rectify"))
        .args(["run", "workflow.yaml", "--on"])
        .arg(format!("restate://127.0.0.1:{port}"))
        .current_dir(work.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("cannot reach Restate"), "{stderr}");
    let bad = Command::new(assert_cmd::cargo::cargo_bin("rectify"))
        .args(["run", "workflow.yaml", "--on", "127.0.0.1:8080"])
        .current_dir(work.path())
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("restate://HOST:PORT"));
}
