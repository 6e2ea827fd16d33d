//! The load-time checks: step graph, names, files, templates and paths.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use rectify_check::RuleSet;

use crate::engine::check::SchemaCache;
use rectify_core::Document;
use rectify_provider::spec::ProviderKind;

use super::Problem;
use super::agents::{escape, known};
use crate::graph;
use crate::spec::{AgentSpec, StepKind, StepSpec, ValidatorSpec, WorkflowSpec};
use crate::template::{Scope, Templates};

/// Unique, well-formed ids, known `needs`, no cycle; returns the dependency lists.
// Long (70 lines): ids, `needs` and cycles are checked in one pass that reports every
// problem with its location; the cycle search is `graph`.
#[allow(clippy::too_many_lines)]
pub(super) fn dependencies(
    spec: &WorkflowSpec,
    file: &Path,
    doc: &Document,
    problems: &mut Vec<Problem>,
) -> Vec<Vec<usize>> {
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    if spec.steps.is_empty() {
        problems.push(Problem::at(
            file,
            doc,
            "/steps",
            "the workflow has no steps",
        ));
    }
    for (i, step) in spec.steps.iter().enumerate() {
        let valid = !step.id.is_empty()
            && step
                .id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !valid {
            problems.push(
                Problem::at(
                    file,
                    doc,
                    &format!("/steps/{i}/id"),
                    format!("invalid step id `{}`", step.id),
                )
                .expected("letters, digits, `_` and `-`"),
            );
        }
        if index.insert(step.id.as_str(), i).is_some() {
            problems.push(Problem::at(
                file,
                doc,
                &format!("/steps/{i}/id"),
                format!("the step id `{}` is used twice", step.id),
            ));
        }
    }
    let mut deps = vec![Vec::new(); spec.steps.len()];
    for (i, step) in spec.steps.iter().enumerate() {
        for (j, need) in step.needs.iter().enumerate() {
            match index.get(need.as_str()) {
                Some(&k) => deps[i].push(k),
                None => problems.push(
                    Problem::at(
                        file,
                        doc,
                        &format!("/steps/{i}/needs/{j}"),
                        format!("`needs` names an unknown step `{need}`"),
                    )
                    .expected(format!(
                        "one of {}",
                        spec.steps
                            .iter()
                            .map(|s| s.id.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )),
                ),
            }
        }
    }
    if let Some(cycle) = graph::find_cycle(&deps) {
        let names: Vec<&str> = cycle.iter().map(|&i| spec.steps[i].id.as_str()).collect();
        let first = cycle[0];
        problems.push(Problem::at(
            file,
            doc,
            &format!("/steps/{first}/needs"),
            format!("the steps' `needs` form a cycle: {}", names.join(" -> ")),
        ));
    }
    deps
}

/// Every other check, once the graph is sound.
pub(super) fn all(
    spec: &WorkflowSpec,
    agents: &BTreeMap<String, AgentSpec>,
    deps: &[Vec<usize>],
    dir: &Path,
    file: &Path,
    doc: &Document,
    problems: &mut Vec<Problem>,
) -> SchemaCache {
    let schemas = SchemaCache::under(dir);
    let cx = Cx {
        spec,
        agents,
        dir,
        file,
        doc,
        templates: Templates::default(),
        schemas: &schemas,
    };
    cx.providers(problems);
    cx.inputs(problems);
    for (i, step) in spec.steps.iter().enumerate() {
        let scope = Scope {
            inputs: spec.inputs.keys().cloned().collect(),
            steps: graph::ancestors(deps, i)
                .into_iter()
                .map(|k| spec.steps[k].id.clone())
                .collect(),
            item: step.foreach.is_some(),
        };
        cx.step(i, step, &scope, problems);
    }
    schemas
}

struct Cx<'a> {
    spec: &'a WorkflowSpec,
    agents: &'a BTreeMap<String, AgentSpec>,
    dir: &'a Path,
    file: &'a Path,
    doc: &'a Document,
    templates: Templates,
    /// Every schema compiled here, kept for the runs of the workflow.
    schemas: &'a SchemaCache,
}

impl Cx<'_> {
    fn at(&self, pointer: &str, message: impl Into<String>) -> Problem {
        Problem::at(self.file, self.doc, pointer, message)
    }

    fn providers(&self, problems: &mut Vec<Problem>) {
        for (name, p) in &self.spec.providers {
            let pointer = format!("/providers/{}", escape(name));
            if p.kind == ProviderKind::Command && p.command.is_empty() {
                problems.push(
                    self.at(
                        &pointer,
                        format!("the command provider `{name}` has no `command`"),
                    )
                    .expected("`command: [program, args...]`"),
                );
            }
        }
        if let Some(p) = &self.spec.defaults.provider
            && !self.spec.providers.contains_key(p)
        {
            problems.push(
                self.at("/defaults/provider", format!("unknown provider `{p}`"))
                    .expected(known(self.spec.providers.keys())),
            );
        }
    }

    fn inputs(&self, problems: &mut Vec<Problem>) {
        let scope = Scope {
            inputs: self.spec.inputs.keys().cloned().collect(),
            ..Scope::default()
        };
        for (name, input) in &self.spec.inputs {
            if let Some(default) = &input.default {
                let pointer = format!("/inputs/{}/default", escape(name));
                self.template(&pointer, default, &scope, problems);
            }
        }
    }

    fn template(&self, pointer: &str, source: &str, scope: &Scope, problems: &mut Vec<Problem>) {
        for p in self.templates.check(source, scope) {
            problems.push(self.at(pointer, p));
        }
    }

    /// Every problem of one step, section by section.
    fn step(&self, i: usize, step: &StepSpec, scope: &Scope, problems: &mut Vec<Problem>) {
        let base = format!("/steps/{i}");
        self.step_shape(&base, step, scope, problems);
        self.step_files(&base, step, scope, problems);
        self.step_foreach(&base, step, scope, problems);
        self.step_on_invalid(&base, step, problems);
        self.step_validators_and_writes(&base, step, problems);
    }

    /// One kind of work (`human`, `answer` or `outputs`), an agent where one is needed, a
    /// prompt, and templates that render.
    fn step_shape(&self, base: &str, step: &StepSpec, scope: &Scope, problems: &mut Vec<Problem>) {
        let kind = step.kind();
        let exclusive = [
            step.human.is_some(),
            step.answer.is_some(),
            !step.outputs.is_empty(),
        ];
        if exclusive.iter().filter(|b| **b).count() > 1 {
            problems.push(
                self.at(
                    base,
                    format!(
                        "the step `{}` mixes `human`, `answer` and `outputs`",
                        step.id
                    ),
                )
                .expected("one of them"),
            );
        }
        match (kind, &step.agent) {
            (StepKind::Human, Some(_)) => {
                problems.push(self.at(&format!("{base}/agent"), "a `human` step has no agent"));
            }
            (StepKind::Human, None) => {
                if step.foreach.is_some() {
                    problems.push(self.at(
                        &format!("{base}/foreach"),
                        "a `human` step cannot be a `foreach`",
                    ));
                }
            }
            (_, None) => problems.push(
                self.at(base, format!("the step `{}` has no `agent`", step.id))
                    .expected("`agent: NAME` (or `human: QUESTION`)"),
            ),
            (_, Some(agent)) => self.agent(&format!("{base}/agent"), agent, problems),
        }
        if kind != StepKind::Human && step.prompt.is_none() {
            problems.push(
                self.at(base, format!("the step `{}` has no `prompt`", step.id))
                    .expected("`prompt: TEXT` (a template)"),
            );
        }
        for (field, text) in [("prompt", &step.prompt), ("human", &step.human)] {
            if let Some(text) = text {
                self.template(&format!("{base}/{field}"), text, scope, problems);
            }
        }
    }

    /// Outputs and the answer: path templates, schema and rules files, references.
    fn step_files(&self, base: &str, step: &StepSpec, scope: &Scope, problems: &mut Vec<Problem>) {
        for (j, output) in step.outputs.iter().enumerate() {
            let at = format!("{base}/outputs/{j}");
            self.path_template(&format!("{at}/path"), &output.path, scope, problems);
            self.check_files(
                &at,
                output.schema.as_deref(),
                output.rules.as_deref(),
                &output.refs,
                problems,
            );
            for (name, r) in &output.refs {
                self.path_template(&format!("{at}/refs/{}", escape(name)), r, scope, problems);
            }
        }
        if let Some(answer) = &step.answer {
            let at = format!("{base}/answer");
            self.check_files(
                &at,
                answer.schema.as_deref(),
                answer.rules.as_deref(),
                &answer.refs,
                problems,
            );
            if let Some(save) = &answer.save {
                self.path_template(&format!("{at}/save"), save, scope, problems);
            }
            for (name, r) in &answer.refs {
                self.path_template(&format!("{at}/refs/{}", escape(name)), r, scope, problems);
            }
        }
    }

    /// `foreach`: its document's path and its JSONPaths.
    fn step_foreach(
        &self,
        base: &str,
        step: &StepSpec,
        scope: &Scope,
        problems: &mut Vec<Problem>,
    ) {
        if let Some(foreach) = &step.foreach {
            let at = format!("{base}/foreach");
            let outer = Scope {
                item: false,
                ..scope.clone()
            };
            self.path_template(
                &format!("{at}/document"),
                &foreach.document,
                &outer,
                problems,
            );
            for (field, path) in [
                ("items", Some(&foreach.items)),
                ("key", Some(&foreach.key)),
                ("needs", foreach.needs.as_ref()),
                ("agent_type", foreach.agent_type.as_ref()),
            ] {
                if let Some(path) = path
                    && let Err(e) = serde_json_path::JsonPath::parse(path)
                {
                    problems.push(self.at(
                        &format!("{at}/{field}"),
                        format!("invalid JSONPath `{path}`: {e}"),
                    ));
                }
            }
        }
    }

    /// `on_invalid`: repair or revise, and the repair agent.
    fn step_on_invalid(&self, base: &str, step: &StepSpec, problems: &mut Vec<Problem>) {
        if let Some(on_invalid) = &step.on_invalid {
            let at = format!("{base}/on_invalid");
            if on_invalid.repair.is_some() && on_invalid.revise.is_some() {
                problems.push(
                    self.at(&at, "`on_invalid` has both `repair` and `revise`")
                        .expected("one of them"),
                );
            }
            if on_invalid.repair.is_some() && step.answer.is_some() {
                problems.push(
                    self.at(
                        &format!("{at}/repair"),
                        "an answer step is revised by its producer, not repaired by an agent",
                    )
                    .expected("`on_invalid: {revise: N}`"),
                );
            }
            if let Some(agent) = &on_invalid.repair {
                self.agent(&format!("{at}/repair"), agent, problems);
            }
        }
    }

    /// Validators and `may_write` globs.
    fn step_validators_and_writes(&self, base: &str, step: &StepSpec, problems: &mut Vec<Problem>) {
        if let Some(validate) = &step.validate {
            for (j, v) in validate.validators.iter().enumerate() {
                let at = format!("{base}/validate/validators/{j}");
                match v {
                    ValidatorSpec::Agent(name) => self.agent(&at, name, problems),
                    ValidatorSpec::Command { command } if command.is_empty() => {
                        problems.push(self.at(&at, "a command validator needs a program"));
                    }
                    ValidatorSpec::Command { .. } => {}
                }
            }
        }
        for (j, glob) in step.may_write.iter().enumerate() {
            let at = format!("{base}/may_write/{j}");
            if let Err(e) = globset::Glob::new(glob) {
                problems.push(self.at(&at, format!("invalid glob: {e}")));
            } else if let Some(why) = escapes(glob.trim_end_matches(['/', '\\']))
                && !glob.trim().is_empty()
            {
                problems.push(
                    self.at(&at, format!("the pattern `{glob}` {why}"))
                        .expected("paths inside the working directory"),
                );
            }
        }
    }

    fn agent(&self, pointer: &str, name: &str, problems: &mut Vec<Problem>) {
        let Some(agent) = self.agents.get(name) else {
            if !self.spec.agents.contains_key(name) {
                problems.push(
                    self.at(pointer, format!("unknown agent `{name}`"))
                        .expected(known(self.spec.agents.keys())),
                );
            }
            return;
        };
        if agent.front.provider.is_none() && self.spec.defaults.provider.is_none() {
            problems.push(
                self.at(pointer, format!("the agent `{name}` has no provider and the workflow sets no `defaults.provider`"))
                    .expected("`provider:` in the agent's front matter or in `defaults`"),
            );
        }
    }

    fn check_files(
        &self,
        at: &str,
        schema: Option<&str>,
        rules: Option<&str>,
        refs: &BTreeMap<String, String>,
        problems: &mut Vec<Problem>,
    ) {
        if let Some(schema) = schema {
            let path = self.dir.join(schema);
            if let Err(e) = self.schemas.get(&path) {
                problems.push(self.at(
                    &format!("{at}/schema"),
                    format!("the schema `{schema}` cannot be used: {e}"),
                ));
            }
        }
        if let Some(rules) = rules {
            let path = self.dir.join(rules);
            match RuleSet::from_file(&path) {
                Err(e) => problems.push(self.at(
                    &format!("{at}/rules"),
                    format!("the rules file `{rules}` cannot be used: {e}"),
                )),
                Ok(set) => {
                    let given: BTreeSet<&str> = set
                        .documents()
                        .keys()
                        .map(String::as_str)
                        .chain(refs.keys().map(String::as_str))
                        .collect();
                    for name in set.referenced_documents() {
                        if !given.contains(name) {
                            problems.push(
                                self.at(&format!("{at}/rules"), format!("the rules name the document `{name}`, which neither the rules file nor `refs` binds"))
                                    .expected(format!("`refs: {{{name}: PATH}}`")),
                            );
                        }
                    }
                }
            }
        }
    }

    /// A path template: its names, and no way out of the working directory.
    fn path_template(
        &self,
        pointer: &str,
        source: &str,
        scope: &Scope,
        problems: &mut Vec<Problem>,
    ) {
        self.template(pointer, source, scope, problems);
        if let Some(why) = escapes(source) {
            problems.push(
                self.at(pointer, format!("the path `{source}` {why}"))
                    .expected("a path inside the working directory"),
            );
        }
    }
}

/// Why a (template) path would leave the working directory, judged on its literal text.
pub(crate) fn escapes(path: &str) -> Option<&'static str> {
    if path.chars().any(char::is_control) {
        return Some("contains a control character (a NUL, a newline, an escape)");
    }
    let trimmed = path.trim();
    if trimmed
        .split(['/', '\\'])
        .all(|seg| seg.trim().is_empty() || seg.trim() == ".")
    {
        return Some("names no file (it is empty or the working directory itself)");
    }
    if trimmed.starts_with('/') || trimmed.starts_with('\\') || trimmed.get(1..3) == Some(":\\") {
        return Some("is absolute");
    }
    if trimmed.split(['/', '\\']).any(|seg| seg.trim() == "..") {
        return Some("goes up with `..`");
    }
    if trimmed.starts_with('~') {
        return Some("starts at a home directory");
    }
    let first = trimmed
        .split(['/', '\\'])
        .find(|seg| !seg.trim().is_empty() && seg.trim() != ".");
    if first.is_some_and(|seg| matches!(seg.trim(), ".git" | ".rectify")) {
        return Some("is inside `.git/` or `.rectify/`, which steps may not write");
    }
    if trimmed.ends_with(['/', '\\']) {
        return Some("names a directory, not a file");
    }
    None
}
