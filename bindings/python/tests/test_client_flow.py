"""rectify.Client (command agent, OpenAI-compatible server) and workflows with a human pause."""

from __future__ import annotations

import asyncio
import json
import os
import stat
from pathlib import Path
from typing import Callable

import pydantic
import pytest

import rectify


class Invoice(pydantic.BaseModel):
    number: str
    total: float


def agent_script(tmp_path: Path) -> Path:
    """A command agent: its first answer misses `total`, later ones are right (a state file
    counts the calls); the prompt arrives on standard input and is saved."""
    script = tmp_path / "agent.sh"
    script.write_text(
        "#!/bin/sh\n"
        f'cat > "{tmp_path}/prompt.$$"\n'
        f'n=$(cat "{tmp_path}/count" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "{tmp_path}/count"\n'
        'if [ "$n" -eq 1 ]; then echo \'Here you go: {"number": "INV-7"}\'; '
        "else echo '```json\n{\"number\": \"INV-7\", \"total\": 12.5,}\n```'; fi\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


def test_client_with_a_command_agent(tmp_path: Path) -> None:
    client = rectify.Client("command", command=["sh", str(agent_script(tmp_path))])
    invoice = client.extract(Invoice, "Invoice INV-7 comes to 12.50 EUR.")
    assert invoice == Invoice(number="INV-7", total=12.5)
    assert (tmp_path / "count").read_text().strip() == "2"
    prompts = [p.read_text() for p in tmp_path.glob("prompt.*")]
    assert any("INV-7 comes to 12.50" in p for p in prompts)
    assert any("total" in p and "missing" in p for p in prompts)


def test_aextract_with_a_command_agent(tmp_path: Path) -> None:
    client = rectify.Client("command", command=["sh", str(agent_script(tmp_path))])
    invoice = asyncio.run(client.aextract(Invoice, "Invoice INV-7 comes to 12.50 EUR."))
    assert invoice.total == 12.5


def test_client_against_an_openai_compatible_server(fake_openai: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    fake_openai["answers"] = ['{"number": "INV-7"}', '{"number": "INV-7", "total": 3}']
    client = rectify.Client("openai", base_url=fake_openai["base_url"], model="fake")
    assert client.extract(Invoice, "Invoice?").total == 3.0
    assert len(fake_openai["requests"]) == 2
    last = fake_openai["requests"][-1]["messages"]
    assert any("total" in m["content"] for m in last if m["role"] == "user")


def test_a_provider_that_fails_is_a_provider_error(fake_openai: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    fake_openai["status"] = 400
    client = rectify.Client("openai", base_url=fake_openai["base_url"], model="fake")
    with pytest.raises(rectify.ProviderError) as info:
        client.extract(Invoice, "Invoice?")
    assert isinstance(info.value, rectify.Error)
    assert "broken" in str(info.value) or "400" in str(info.value)


def test_a_refusal_is_refused(fake_openai: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    fake_openai["answers"] = ["REFUSE:I cannot help with invoices"]
    client = rectify.Client("openai", base_url=fake_openai["base_url"], model="fake")
    with pytest.raises(rectify.Refused) as info:
        client.extract(Invoice, "Invoice?")
    assert isinstance(info.value, rectify.Error)
    assert "cannot help with invoices" in str(info.value)
    assert 1 <= len(info.value.attempts) == len(fake_openai["requests"])


def test_a_command_agent_that_fails_is_a_provider_error(tmp_path: Path) -> None:
    client = rectify.Client("command", command=["sh", "-c", "echo nope >&2; exit 3"])
    with pytest.raises((rectify.ProviderError, rectify.ConfigError)):
        client.extract(Invoice, "Invoice?")


def test_from_env_without_a_provider_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ["RECTIFY_PROVIDER", "OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "RECTIFY_MODEL"]:
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(rectify.ConfigError):
        rectify.Client.from_env()
    with pytest.raises(rectify.ConfigError):
        rectify.Client("nonsense")  # type: ignore[arg-type]


def test_from_env_picks_openai(fake_openai: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RECTIFY_PROVIDER", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    monkeypatch.setenv("OPENAI_BASE_URL", fake_openai["base_url"])
    fake_openai["answers"] = ['{"number": "A", "total": 1}']
    client = rectify.Client.from_env()
    assert "openai" in repr(client)
    assert client.extract({"type": "object", "required": ["number"]}, "x") == {"number": "A", "total": 1}


def workflow(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    (work / "agents").mkdir(parents=True)
    (work / "agents/a.md").write_text("---\nname: a\n---\nWork.\n")
    (tmp_path / "agent.sh").write_text('echo "{\\"step\\": \\"$RECTIFY_STEP\\"}" > "$RECTIFY_STEP.json"\n')
    (work / "workflow.yaml").write_text(
        "name: paused\n"
        "providers:\n"
        f'  sh: {{kind: command, command: [sh, "{tmp_path / "agent.sh"}"]}}\n'
        "defaults: {provider: sh}\n"
        "agents: {a: agents/a.md}\n"
        "steps:\n"
        "  - {id: spec, agent: a, prompt: go, outputs: [{path: spec.json}]}\n"
        "  - {id: approve, needs: [spec], human: Approve the spec?}\n"
        "  - {id: code, needs: [approve], agent: a, prompt: go, outputs: [{path: code.json}]}\n"
    )
    return work


def test_workflow_pauses_for_a_person_and_resumes_from_python(tmp_path: Path) -> None:
    work = workflow(tmp_path)
    summary = rectify.run(work / "workflow.yaml", workdir=work, run_id="r1")
    assert summary.run_id == "r1"
    assert summary.status == "waiting"
    assert summary.waiting is not None
    assert (summary.waiting.step, summary.waiting.reason) == ("approve", "human")
    assert summary.waiting.message == "Approve the spec?"
    assert summary.step("spec").status == "done"
    assert not (work / "code.json").exists()

    seen = rectify.status("r1", workdir=work)
    assert seen.status == "waiting" and seen.workflow == "paused"

    done = rectify.resume("r1", approve=True, workdir=work)
    assert done.status == "completed"
    assert done.step("code").status == "done"
    assert (work / "code.json").exists()
    assert rectify.status("r1", workdir=work).status == "completed"


def test_workflow_reject_sends_the_work_back(tmp_path: Path) -> None:
    work = workflow(tmp_path)
    rectify.run(work / "workflow.yaml", workdir=work, run_id="r2")
    again = rectify.resume("r2", reject="use more detail", workdir=work)
    assert again.status == "waiting"
    assert again.step("spec").revisions >= 1 or again.step("spec").attempts >= 2


def test_workflow_errors(tmp_path: Path) -> None:
    work = workflow(tmp_path)
    (work / "bad.yaml").write_text("name: bad\nsteps:\n  - {id: x, nonsense: 1}\n")
    with pytest.raises(rectify.ConfigError):
        rectify.run(work / "bad.yaml", workdir=work)
    with pytest.raises(rectify.ConfigError):
        rectify.status("nope", workdir=tmp_path)
    with pytest.raises(rectify.ConfigError):
        rectify.resume("nope", approve=True, workdir=tmp_path)
    with pytest.raises(rectify.ConfigError):
        rectify.resume("nope", approve=True, reject="x", workdir=work)
    rectify.run(work / "workflow.yaml", workdir=work, run_id="r3")
    with pytest.raises(rectify.ConfigError):
        rectify.run(work / "workflow.yaml", workdir=work, run_id="r3")
    assert os.path.isdir(work / ".rectify")


def test_ctrl_c_interrupts_a_call_blocked_in_rust(tmp_path: Path) -> None:
    """A SIGALRM handler raising KeyboardInterrupt stands in for Ctrl-C: the call returns at once
    (the engine looks for pending signals while it waits), not after the agent's 30 seconds."""
    import signal
    import time

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    client = rectify.Client("command", command=["sh", "-c", "sleep 30; echo '{}'"])
    old = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.3)
    start = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            client.extract(Invoice, "Invoice?")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert time.monotonic() - start < 5


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped) is not running.
    proc = Path(f"/proc/{pid}/stat")
    return not (proc.exists() and proc.read_text().split(")")[-1].split()[0] == "Z")


def _wait_for(check: Callable[[], bool], seconds: float = 20.0) -> bool:
    import time

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.05)
    return check()


def test_cancelling_aextract_stops_the_agent(tmp_path: Path) -> None:
    """Cancelling the task that awaits `aextract` drops the call in Rust: the command agent's
    process is stopped, not left to run its 60 seconds on a worker thread."""
    pidfile = tmp_path / "pid"
    client = rectify.Client(
        "command", command=["sh", "-c", f"echo $$ > {pidfile}; exec sleep 60"]
    )

    async def main() -> None:
        task = asyncio.ensure_future(client.aextract(Invoice, "Invoice?"))
        while not pidfile.exists() or not pidfile.read_text().strip():
            await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    pid = int(pidfile.read_text())
    assert _wait_for(lambda: not _alive(pid)), "the agent still runs after the cancellation"


def test_an_interrupted_workflow_is_recorded_and_resumes(tmp_path: Path) -> None:
    """Ctrl-C during a workflow (SIGALRM raising KeyboardInterrupt stands in for it) records
    the run as interrupted, as `rectify run` does, so resuming it from the same process
    continues it."""
    import signal

    work = workflow(tmp_path)
    gate = tmp_path / "go"
    (tmp_path / "agent.sh").write_text(
        f'while [ ! -e "{gate}" ]; do sleep 0.05; done\n'
        'echo "{\\"step\\": \\"$RECTIFY_STEP\\"}" > "$RECTIFY_STEP.json"\n'
    )

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.5)
    try:
        with pytest.raises(KeyboardInterrupt):
            rectify.run(work / "workflow.yaml", workdir=work, run_id="r9")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert rectify.status("r9", workdir=work).status == "interrupted"
    gate.write_text("")
    resumed = rectify.resume("r9", workdir=work)
    assert resumed.status == "waiting"
    assert resumed.step("spec").status == "done"
    assert (work / "spec.json").exists()


def test_client_from_env_with_anthropic(fake_anthropic: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    """With only ANTHROPIC_API_KEY set, the client speaks the Messages API: the key in
    `x-api-key`, the first answer's missing field fed back, the second accepted."""
    for name in ("RECTIFY_PROVIDER", "OPENAI_API_KEY", "OPENAI_BASE_URL", "RECTIFY_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_anthropic["base_url"])
    fake_anthropic["answers"] = ['{"number": "INV-7"}', '{"number": "INV-7", "total": 12.5}']
    client = rectify.Client.from_env()
    assert "anthropic" in repr(client)
    invoice = client.extract(Invoice, "Invoice INV-7 comes to 12.50 EUR.")
    assert (invoice.number, invoice.total) == ("INV-7", 12.5)
    first, second = fake_anthropic["requests"]
    assert first["path"] == "/v1/messages"
    assert first["headers"].get("x-api-key") == "sk-ant-test"
    assert "total" in json.dumps(second["body"]["messages"])
