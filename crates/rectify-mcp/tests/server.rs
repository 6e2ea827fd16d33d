//! The server driven through the SDK's own client over an in-memory duplex: the tools answer in
//! the wire formats of `--output json`, paths that leave the root are refused before anything
//! is read, a workflow pauses for a person and is resumed, resources and the prompt.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use rectify_mcp::{Root, Server};
use rmcp::model::{
    CallToolRequestParams, CallToolResult, GetPromptRequestParams, ReadResourceRequestParams,
};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

type Client = RunningService<RoleClient, ()>;

/// A root with a schema, documents, a secret outside it, a symbolic link out of it, and a
/// workflow that pauses for a person between two script agents.
fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let outside = dir.path().join("outside");
    for d in [&root, &outside, &root.join("agents")] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(outside.join("secret.json"), "{\"secret\": \"s3cr3t\"}").unwrap();
    std::fs::write(outside.join("s.schema.json"), "{\"const\": \"s3cr3t\"}").unwrap();
    std::os::unix::fs::symlink(&outside, root.join("link")).unwrap();
    let files = [
        (
            "schema.json",
            "{\"type\": \"object\", \"required\": [\"name\"], \"properties\": {\"name\": {\"type\": \"string\"}}}",
        ),
        ("good.json", "{\"name\": \"Ada\"}"),
        ("bad.json", "{\n  \"name\": 7\n}\n"),
        (
            "ref.schema.json",
            "{\"$ref\": \"../outside/s.schema.json\"}",
        ),
        (
            "rules.yaml",
            "documents:\n  plan: link/secret.json\nrules:\n  - id: r\n    unique: \"$.x[*]\"\n",
        ),
        ("writer.sh", "cat > /dev/null\necho spec > spec.txt\n"),
        ("coder.sh", "cat > /dev/null\necho done > code.txt\n"),
        (
            "agents/writer.md",
            "---\nname: writer\nprovider: writer\n---\nWrite.\n",
        ),
        (
            "agents/coder.md",
            "---\nname: coder\nprovider: coder\n---\nCode.\n",
        ),
    ];
    for (name, text) in files {
        std::fs::write(root.join(name), text).unwrap();
    }
    let sh = |n: &str| root.join(format!("{n}.sh")).display().to_string();
    std::fs::write(
        root.join("gated.yaml"),
        format!(
            "name: gated\nproviders:\n  writer: {{kind: command, command: [sh, \"{}\"]}}\n  coder: {{kind: command, command: [sh, \"{}\"]}}\nagents: {{writer: agents/writer.md, coder: agents/coder.md}}\nsteps:\n  - {{id: spec, agent: writer, prompt: write, outputs: [{{path: spec.txt}}]}}\n  - {{id: approve, needs: [spec], human: \"ok?\"}}\n  - {{id: code, needs: [approve], agent: coder, prompt: code, outputs: [{{path: code.txt}}]}}\n",
            sh("writer"),
            sh("coder")
        ),
    )
    .unwrap();
    dir
}

async fn connect(root: &Path) -> Client {
    let server = Server::new(Root::new(root).unwrap(), Vec::new());
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        let running = server.serve(server_io).await.unwrap();
        let _ = running.waiting().await;
    });
    ().serve(client_io).await.unwrap()
}

async fn call(client: &Client, tool: &str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    client
        .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(args))
        .await
        .unwrap()
}

fn text(result: &CallToolResult) -> String {
    serde_json::to_value(&result.content).unwrap().to_string()
}

#[tokio::test]
async fn check_answers_in_the_wire_format_of_rectify_check() {
    let dir = fixture();
    let client = connect(&dir.path().join("root")).await;
    let tools = client.list_all_tools().await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "ask", "check", "repair", "report", "resume", "run", "status"
        ]
    );
    let good = call(
        &client,
        "check",
        json!({"file": "good.json", "schema": ["schema.json"]}),
    )
    .await;
    assert_eq!(
        good.structured_content,
        Some(json!({"valid": true, "diagnostics": [], "repairs": []}))
    );
    let bad = call(
        &client,
        "check",
        json!({"file": "bad.json", "schema": ["schema.json"]}),
    )
    .await;
    let d = &bad.structured_content.unwrap()["diagnostics"][0];
    assert_eq!(
        (d["code"].as_str(), d["path"].as_str()),
        (Some("schema.type"), Some("name"))
    );
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(2), Some(11))
    );
    let repaired = call(&client, "repair", json!({"content": "{'name': 'Ada',}"})).await;
    assert_eq!(
        repaired.structured_content.unwrap()["value"],
        json!({"name": "Ada"})
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn paths_leaving_the_root_are_refused_and_nothing_is_read() {
    let dir = fixture();
    let client = connect(&dir.path().join("root")).await;
    let outside = dir.path().join("outside/secret.json").display().to_string();
    for file in [
        "../outside/secret.json",
        outside.as_str(),
        "link/secret.json",
        "good.json/../../outside/secret.json",
    ] {
        let r = call(&client, "check", json!({"file": file})).await;
        assert_eq!(r.is_error, Some(true), "{file}");
        assert!(text(&r).contains("root"), "{file}: {}", text(&r));
        assert!(!text(&r).contains("s3cr3t"), "{file}");
    }
    let r = call(
        &client,
        "check",
        json!({"file": "good.json", "schema": ["ref.schema.json"]}),
    )
    .await;
    assert_eq!(r.is_error, Some(true));
    assert!(
        text(&r).contains("outside the schema's directory"),
        "{}",
        text(&r)
    );
    // A rules file's named documents, and `refs`, are confined the same way.
    for args in [
        json!({"file": "good.json", "rules": "rules.yaml"}),
        json!({"file": "good.json", "rules": "rules.yaml", "refs": {"plan": "../outside/secret.json"}}),
    ] {
        let r = call(&client, "check", args).await;
        assert_eq!(r.is_error, Some(true));
        let said = text(&r);
        assert!(
            said.contains("root") || said.contains("leads out"),
            "{said}"
        );
        assert!(!said.contains("s3cr3t"));
    }
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_workflow_pauses_for_a_person_and_is_resumed_through_the_tools() {
    let dir = fixture();
    let root = dir.path().join("root");
    let client = connect(&root).await;
    let run = call(
        &client,
        "run",
        json!({"workflow": "gated.yaml", "run_id": "g1"}),
    )
    .await;
    let summary = run
        .structured_content
        .clone()
        .unwrap_or_else(|| panic!("{}", text(&run)));
    assert_eq!(summary["status"], "waiting");
    assert_eq!(summary["waiting"]["step"], "approve");
    let resource = client
        .read_resource(ReadResourceRequestParams::new("rectify://runs/g1"))
        .await
        .unwrap();
    let body = serde_json::to_value(&resource.contents[0]).unwrap();
    assert!(body["text"].as_str().unwrap().contains("\"waiting\""));
    let resumed = call(
        &client,
        "resume",
        json!({"run": "g1", "decision": "approve"}),
    )
    .await;
    assert_eq!(resumed.structured_content.unwrap()["status"], "completed");
    assert_eq!(
        std::fs::read_to_string(root.join("code.txt")).unwrap(),
        "done\n"
    );
    let report = call(&client, "report", json!({"run": "g1"})).await;
    assert!(
        report
            .structured_content
            .unwrap()
            .to_string()
            .contains("approve")
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_prompt_is_built_from_a_check_and_the_catalogue_is_a_resource() {
    let dir = fixture();
    let client = connect(&dir.path().join("root")).await;
    let mut args = serde_json::Map::new();
    args.insert("file".into(), json!("bad.json"));
    args.insert("schema".into(), json!("schema.json"));
    let prompt = client
        .get_prompt(GetPromptRequestParams::new("fix-diagnostics").with_arguments(args))
        .await
        .unwrap();
    let body = serde_json::to_value(&prompt.messages[0])
        .unwrap()
        .to_string();
    assert!(
        body.contains("name (line 2, column 11): expected string"),
        "{body}"
    );
    let catalogue = client
        .read_resource(ReadResourceRequestParams::new("rectify://diagnostics"))
        .await
        .unwrap();
    assert!(
        serde_json::to_value(&catalogue.contents[0]).unwrap()["text"]
            .as_str()
            .unwrap()
            .contains("schema.type")
    );
    client.cancel().await.unwrap();
}
