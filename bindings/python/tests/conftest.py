"""Shared helpers: a scripted model (the `execute` callable) and a fake OpenAI-compatible server."""

from __future__ import annotations

import http.server
import json
import threading
from typing import Iterator, List, Optional

import pytest


class Scripted:
    """A model that answers from a script, recording the feedback of every call."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.feedback: List[Optional[str]] = []

    def __call__(self, feedback: Optional[str]) -> str:
        self.feedback.append(feedback)
        return self.answers[min(len(self.feedback), len(self.answers)) - 1]

    @property
    def calls(self) -> int:
        return len(self.feedback)


@pytest.fixture
def fake_openai() -> Iterator[dict]:
    """An HTTP server speaking the OpenAI chat-completions wire format. `state["status"]` is the
    HTTP status it answers with, `state["answers"]` the contents of successive completions."""
    state: dict = {"status": 200, "answers": [], "requests": []}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            body = self.rfile.read(int(self.headers.get("content-length", 0)))
            state["requests"].append(json.loads(body or b"{}"))
            if state["status"] != 200:
                payload = json.dumps({"error": {"message": "the server is broken", "type": "invalid_request_error"}})
            else:
                i = min(len(state["requests"]), len(state["answers"])) - 1
                answer = state["answers"][i]
                message = {"role": "assistant", "content": answer}
                if answer.startswith("REFUSE:"):  # a refusal, as OpenAI sends one
                    message = {"role": "assistant", "content": None, "refusal": answer[7:]}
                payload = json.dumps(
                    {
                        "id": "x",
                        "object": "chat.completion",
                        "model": "fake",
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": message,
                            }
                        ],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                    }
                )
            data = payload.encode()
            self.send_response(state["status"])
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state["base_url"] = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield state
    finally:
        server.shutdown()


@pytest.fixture
def fake_anthropic() -> Iterator[dict]:
    """An HTTP server speaking the Anthropic Messages API (`POST /v1/messages`): text blocks,
    a stop reason and usage. `state["answers"]` are the texts of successive messages; every
    request is kept in `state["requests"]` with its headers."""
    state: dict = {"answers": [], "requests": []}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            body = self.rfile.read(int(self.headers.get("content-length", 0)))
            state["requests"].append(
                {"path": self.path, "headers": dict(self.headers), "body": json.loads(body or b"{}")}
            )
            i = min(len(state["requests"]), len(state["answers"])) - 1
            payload = json.dumps(
                {
                    "id": "msg_1",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-fake",
                    "content": [{"type": "text", "text": state["answers"][i]}],
                    "stop_reason": "end_turn",
                    "usage": {"input_tokens": 12, "output_tokens": 6},
                }
            ).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state["base_url"] = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield state
    finally:
        server.shutdown()
