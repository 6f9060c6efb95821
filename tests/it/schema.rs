//! The generated protocol documents: the committed `protocol/openrpc.json` and
//! `protocol/schemas/*.json` equal what `askd schema` generates, load in a standard JSON Schema
//! validator, and describe what the real binary sends; `protocol/README.md` tables follow the
//! code.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::support::Server;
use askd::cli::schema;
use askd::core::Action;
use askd::server::METHODS;
use jsonschema::Validator;
use serde_json::{Value, json};

/// The package root.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The committed protocol folder.
fn protocol() -> PathBuf {
    root().join("protocol")
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        panic!(
            "cannot read {}: {e}; run `cargo run --bin askd -- schema`",
            path.display()
        )
    });
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// Every error of `validator` on `instance`, one per line.
fn errors(validator: &Validator, instance: &Value) -> String {
    validator
        .iter_errors(instance)
        .map(|e| format!("  at {}: {e}", e.instance_path()))
        .collect::<Vec<_>>()
        .join("\n")
}

fn compile(schema: &Value, what: &str) -> Validator {
    jsonschema::validator_for(schema).unwrap_or_else(|e| panic!("{what} does not compile: {e}"))
}

// ---------------------------------------------------------------------------------------------
// (a) The committed files are the generated ones
// ---------------------------------------------------------------------------------------------

#[test]
fn committed_files_equal_the_generated_ones() {
    let mut stale = Vec::new();
    for (name, text) in schema::files() {
        let path = protocol().join(&name);
        match std::fs::read_to_string(&path) {
            Ok(committed) if committed == text => {}
            Ok(_) => stale.push(format!("{} differs", name.display())),
            Err(_) => stale.push(format!("{} is missing", name.display())),
        }
    }
    let generated: BTreeSet<String> = schema::schemas().into_iter().map(|(n, _)| n).collect();
    let on_disk: BTreeSet<String> = std::fs::read_dir(protocol().join(schema::SCHEMAS_DIR))
        .map(|dir| {
            dir.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".json"))
                .collect()
        })
        .unwrap_or_default();
    stale.extend(
        on_disk
            .difference(&generated)
            .map(|n| format!("schemas/{n} is not generated any more")),
    );
    assert!(
        stale.is_empty(),
        "protocol/ is out of date ({}): run `cargo run --bin askd -- schema`",
        stale.join("; ")
    );
}

#[test]
fn generation_is_deterministic_pretty_and_newline_terminated() {
    let first = schema::files();
    assert_eq!(first, schema::files());
    let names: Vec<String> = first.iter().map(|(n, _)| n.display().to_string()).collect();
    assert_eq!(
        names,
        [
            "openrpc.json",
            "schemas/pi-payload.json",
            "schemas/pi-result.json",
            "schemas/claude-request.json",
            "schemas/claude-result.json",
            "schemas/codex-request.json",
            "schemas/codex-result.json",
            "schemas/opencode-request.json",
            "schemas/opencode-result.json",
            "schemas/mcp-request.json",
            "schemas/mcp-result.json",
            "schemas/dsh-request.json",
            "schemas/dsh-answer.json",
            "schemas/dsh-result.json",
            "schemas/step.json",
            "schemas/view.json",
        ]
    );
    for (name, text) in first {
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            text,
            format!("{}\n", serde_json::to_string_pretty(&value).unwrap()),
            "{}",
            name.display()
        );
    }
}

#[test]
fn schema_command_writes_the_files_and_removes_stale_schemas() {
    let dir = std::env::temp_dir().join(format!("askd-schema-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("schemas")).unwrap();
    std::fs::write(dir.join("schemas/old.json"), "{}").unwrap();
    std::fs::write(dir.join("schemas/notes.txt"), "kept").unwrap();
    let out = dir.to_string_lossy().into_owned();
    let (status, stdout, stderr) = crate::support::run_to_end(&["schema", "--out", &out]);
    assert!(status.success(), "askd schema failed: {stderr}");
    let listed: Vec<String> = stdout.lines().map(str::to_owned).collect();
    let expected: Vec<String> = schema::files()
        .iter()
        .map(|(name, _)| dir.join(name).display().to_string())
        .collect();
    assert_eq!(listed, expected);
    for (name, text) in schema::files() {
        assert_eq!(std::fs::read_to_string(dir.join(name)).unwrap(), text);
    }
    assert!(!dir.join("schemas/old.json").exists());
    assert!(dir.join("schemas/notes.txt").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---------------------------------------------------------------------------------------------
// The OpenRPC document
// ---------------------------------------------------------------------------------------------

#[test]
fn openrpc_describes_every_method_in_order() {
    let doc = schema::openrpc();
    assert_eq!(doc["openrpc"], "1.2.6");
    assert_eq!(doc["info"]["title"], "askd");
    assert_eq!(doc["info"]["version"], env!("CARGO_PKG_VERSION"));
    let names: Vec<&str> = doc["methods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, METHODS);
    let params: BTreeMap<&str, Vec<(String, bool)>> = doc["methods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            assert_eq!(m["paramStructure"], "by-name");
            let list = m["params"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| {
                    assert!(p["description"].is_string(), "{p}");
                    (
                        p["name"].as_str().unwrap().to_owned(),
                        p["required"].as_bool().unwrap(),
                    )
                })
                .collect();
            (m["name"].as_str().unwrap(), list)
        })
        .collect();
    let p = |list: &[(&str, bool)]| -> Vec<(String, bool)> {
        list.iter().map(|(n, r)| ((*n).to_owned(), *r)).collect()
    };
    let open = p(&[
        ("payload", true),
        ("dialect", false),
        ("session", false),
        ("hasUI", false),
        ("width", false),
        ("allRows", false),
        ("cwd", false),
        ("keymap", false),
        ("keymapPreset", false),
        ("timeoutMs", false),
        ("behaviour", false),
        ("asker", false),
        ("resume", false),
        ("claude", false),
        ("mcp", false),
    ]);
    let session = p(&[("session", true)]);
    let expected: BTreeMap<&str, Vec<(String, bool)>> = BTreeMap::from([
        (
            "initialize",
            p(&[("clientInfo", false), ("capabilities", false)]),
        ),
        ("open", open.clone()),
        ("ask", open),
        ("key", p(&[("session", true), ("key", true)])),
        (
            "keys",
            p(&[("session", true), ("keys", true), ("trace", false)]),
        ),
        ("activate", p(&[("session", true), ("target", true)])),
        (
            "setDraft",
            p(&[("session", true), ("text", true), ("caret", false)]),
        ),
        ("insert", p(&[("session", true), ("text", true)])),
        (
            "saveCustom",
            p(&[
                ("session", true),
                ("questionId", true),
                ("text", true),
                ("submit", false),
            ]),
        ),
        (
            "setNote",
            p(&[
                ("session", true),
                ("questionId", true),
                ("optionValue", false),
                ("text", true),
            ]),
        ),
        (
            "submitAnswers",
            p(&[("session", true), ("answers", true), ("mode", false)]),
        ),
        (
            "getView",
            p(&[("session", true), ("width", false), ("allRows", false)]),
        ),
        ("getResult", session.clone()),
        ("cancel", p(&[("session", true), ("reason", false)])),
        ("close", session.clone()),
        ("snapshot", session.clone()),
        ("restore", p(&[("state", true), ("session", false)])),
        ("sessions", vec![]),
        (
            "recover",
            p(&[
                ("session", true),
                ("as", false),
                ("width", false),
                ("allRows", false),
                ("cwd", false),
            ]),
        ),
        ("discard", session.clone()),
        (
            "subscribe",
            p(&[
                ("session", false),
                ("width", false),
                ("allRows", false),
                ("attach", false),
            ]),
        ),
        ("unsubscribe", vec![]),
        ("hub/status", vec![]),
        ("shutdown", vec![]),
        ("exit", vec![]),
    ]);
    assert_eq!(params, expected);
}

#[test]
fn openrpc_errors_are_declared_per_method() {
    let doc = schema::openrpc();
    let components: BTreeMap<i64, String> = doc["components"]["errors"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(name, e)| (e["code"].as_i64().unwrap(), name.clone()))
        .collect();
    assert_eq!(
        components.keys().copied().collect::<Vec<_>>(),
        [
            -32700, -32603, -32602, -32601, -32600, -32010, -32004, -32003, -32002, -32001
        ]
    );
    let codes = |method: &str| -> Vec<i64> {
        let m = doc["methods"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["name"] == method)
            .unwrap();
        m["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                let name = e["$ref"]
                    .as_str()
                    .unwrap()
                    .strip_prefix("#/components/errors/")
                    .unwrap();
                doc["components"]["errors"][name]["code"].as_i64().unwrap()
            })
            .collect()
    };
    assert_eq!(codes("initialize"), [-32602]);
    assert_eq!(codes("open"), [-32602, -32004, -32010]);
    assert_eq!(codes("ask"), [-32600, -32602, -32002, -32004, -32010]);
    assert_eq!(codes("key"), [-32602, -32001, -32002, -32004]);
    assert_eq!(codes("keys"), [-32602, -32001, -32002, -32004]);
    assert_eq!(codes("insert"), [-32602, -32001, -32002, -32003, -32004]);
    assert_eq!(codes("saveCustom"), [-32602, -32001, -32002, -32004]);
    assert_eq!(codes("setNote"), [-32602, -32001, -32002, -32004]);
    assert_eq!(codes("submitAnswers"), [-32602, -32001, -32002, -32004]);
    assert_eq!(codes("getView"), [-32602, -32001]);
    assert_eq!(codes("getResult"), [-32602, -32001]);
    assert_eq!(codes("cancel"), [-32602, -32001, -32002]);
    assert_eq!(codes("close"), [-32602]);
    assert_eq!(codes("snapshot"), [-32602, -32001]);
    assert_eq!(codes("restore"), [-32602, -32004]);
    assert_eq!(codes("subscribe"), [-32602]);
    for method in ["sessions", "unsubscribe", "shutdown", "exit"] {
        assert_eq!(codes(method), Vec::<i64>::new(), "{method}");
    }
    let exit = &doc["methods"].as_array().unwrap()[METHODS.len() - 1];
    assert_eq!(exit["name"], "exit");
    assert!(exit.get("result").is_none(), "exit is a notification");
}

#[test]
fn keymap_overrides_schema_names_every_action() {
    let doc = schema::openrpc();
    let names: Vec<&str> = doc["components"]["schemas"]["KeymapOverrides"]["propertyNames"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    let expected: Vec<&str> = Action::ALL.iter().map(|a| a.name()).collect();
    assert_eq!(names, expected);
}

// ---------------------------------------------------------------------------------------------
// (b) Every schema compiles
// ---------------------------------------------------------------------------------------------

/// The draft-07 and 2020-12 meta-schema URIs.
const DRAFTS: [&str; 2] = [
    "http://json-schema.org/draft-07/schema#",
    "https://json-schema.org/draft/2020-12/schema",
];

/// `schema` evaluated in the OpenRPC document's components (so its `$ref`s resolve), in `draft`.
fn in_components(doc: &Value, schema: &Value, draft: &str) -> Value {
    json!({ "$schema": draft, "allOf": [schema], "components": doc["components"] })
}

#[test]
fn every_schema_file_compiles_and_is_valid_against_its_meta_schema() {
    for (name, schema) in schema::schemas() {
        assert_eq!(
            schema["$schema"], DRAFTS[1],
            "{name} declares JSON Schema 2020-12"
        );
        if let Err(e) = jsonschema::meta::validate(&schema) {
            panic!("{name} is not a valid schema: {e}");
        }
        compile(&schema, &name);
        assert!(schema["title"].is_string(), "{name} has a title");
    }
}

#[test]
fn openrpc_component_params_and_result_schemas_compile_in_both_drafts() {
    let doc = schema::openrpc();
    let components = doc["components"]["schemas"].as_object().unwrap();
    assert!(components.len() > 60, "{} components", components.len());
    for draft in DRAFTS {
        for name in components.keys() {
            let reference = json!({ "$ref": format!("#/components/schemas/{name}") });
            let schema = in_components(&doc, &reference, draft);
            if let Err(e) = jsonschema::meta::validate(&schema) {
                panic!("component {name} is not a valid {draft} schema: {e}");
            }
            compile(&schema, &format!("component {name} ({draft})"));
        }
        for method in doc["methods"].as_array().unwrap() {
            let name = method["name"].as_str().unwrap();
            for param in method["params"].as_array().unwrap() {
                let schema = in_components(&doc, &param["schema"], draft);
                compile(&schema, &format!("{name} param {}", param["name"]));
            }
            if let Some(result) = method.get("result") {
                let schema = in_components(&doc, &result["schema"], draft);
                compile(&schema, &format!("{name} result"));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// (c) What the real binary sends validates
// ---------------------------------------------------------------------------------------------

/// Compiled validators: the committed schema files, and per method its params and result in
/// the committed OpenRPC document.
struct Contract {
    files: BTreeMap<String, Validator>,
    params: BTreeMap<String, Validator>,
    results: BTreeMap<String, Validator>,
    errors: BTreeMap<String, BTreeSet<i64>>,
    error_data: Validator,
}

impl Contract {
    fn load() -> Contract {
        let files = schema::schemas()
            .into_iter()
            .map(|(name, _)| {
                let schema = read_json(&protocol().join(schema::SCHEMAS_DIR).join(&name));
                let validator = compile(&schema, &name);
                (name, validator)
            })
            .collect();
        let doc = read_json(&protocol().join(schema::OPENRPC_FILE));
        let mut params = BTreeMap::new();
        let mut results = BTreeMap::new();
        let mut errors = BTreeMap::new();
        for method in doc["methods"].as_array().unwrap() {
            let name = method["name"].as_str().unwrap().to_owned();
            let mut properties = serde_json::Map::new();
            let mut required = Vec::new();
            for param in method["params"].as_array().unwrap() {
                let param_name = param["name"].as_str().unwrap();
                properties.insert(param_name.to_owned(), param["schema"].clone());
                if param["required"] == true {
                    required.push(param_name.to_owned());
                }
            }
            let object =
                json!({ "type": "object", "properties": properties, "required": required });
            params.insert(
                name.clone(),
                compile(&in_components(&doc, &object, DRAFTS[1]), &name),
            );
            if let Some(result) = method.get("result") {
                let schema = in_components(&doc, &result["schema"], DRAFTS[1]);
                results.insert(name.clone(), compile(&schema, &name));
            }
            let codes = method["errors"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| {
                    let component = e["$ref"].as_str().unwrap().rsplit('/').next().unwrap();
                    doc["components"]["errors"][component]["code"]
                        .as_i64()
                        .unwrap()
                })
                .collect();
            errors.insert(name, codes);
        }
        let data = json!({ "$ref": "#/components/schemas/UserQuestionErrorData" });
        let error_data = compile(&in_components(&doc, &data, DRAFTS[1]), "error data");
        Contract {
            files,
            params,
            results,
            errors,
            error_data,
        }
    }

    fn check(&self, file: &str, instance: &Value, what: &str) {
        let validator = &self.files[file];
        assert!(
            validator.is_valid(instance),
            "{what} does not validate against {file}:\n{}\n{instance}",
            errors(validator, instance)
        );
    }
}

/// What the validated replies covered, so that the session cannot silently shrink.
#[derive(Default)]
struct Seen {
    steps: usize,
    focus: BTreeSet<String>,
    outcomes: BTreeSet<String>,
    editors: BTreeSet<String>,
    dsh_results: BTreeSet<String>,
    pi_results: usize,
    /// The other dialects whose results were validated.
    other_results: BTreeSet<String>,
    lines: usize,
    traced: usize,
    plan_reviews: usize,
    error_codes: BTreeSet<i64>,
}

/// A client that validates every request and reply against the contract.
struct Client<'a> {
    server: Server,
    contract: &'a Contract,
    seen: Seen,
}

impl<'a> Client<'a> {
    fn start(contract: &'a Contract) -> Client<'a> {
        Client {
            server: Server::start(&[]),
            contract,
            seen: Seen::default(),
        }
    }

    fn check_params(&self, method: &str, params: &Value) {
        let validator = &self.contract.params[method];
        assert!(
            validator.is_valid(params),
            "{method} params do not validate against the OpenRPC document:\n{}\n{params}",
            errors(validator, params)
        );
    }

    /// Checks a method's result against its OpenRPC result schema and, for a Step or a view,
    /// against the schema files.
    fn check_result(&mut self, method: &str, result: &Value) {
        let validator = &self.contract.results[method];
        assert!(
            validator.is_valid(result),
            "{method} result does not validate against the OpenRPC document:\n{}\n{result}",
            errors(validator, result)
        );
        match method {
            "getView" => self.check_view(result),
            "getResult" if result.is_null() => {}
            "getResult" if result.get("content").is_some() => self.check_pi_result(result),
            "getResult"
                if result.get("answer").is_some() || result["error"]["name"].is_string() =>
            {
                self.check_dsh_result(result)
            }
            "ask" if result.get("content").is_some() && result.get("details").is_some() => {
                self.check_pi_result(result)
            }
            "ask" if result["answers"][0]["id"].is_string() => {
                self.contract
                    .check("dsh-answer.json", result, "an ask result");
                self.seen.dsh_results.insert("answer".to_owned());
            }
            "open" | "key" | "keys" | "insert" | "saveCustom" | "setNote" | "submitAnswers"
            | "cancel" | "restore" => self.check_step(result),
            _ => {}
        }
    }

    fn check_step(&mut self, step: &Value) {
        self.contract.check("step.json", step, "a Step");
        self.seen.steps += 1;
        self.check_view(&step["view"]);
        let done = step["status"] == "done";
        assert_eq!(step.get("result").is_some(), done, "{step}");
        assert_eq!(step.get("transcript").is_some(), done, "{step}");
        if let Some(result) = step.get("result") {
            match step["view"]["dialect"].as_str().unwrap() {
                "pi" => self.check_pi_result(result),
                "dsh" => self.check_dsh_result(result),
                other => {
                    let file = format!("{other}-result.json");
                    self.contract
                        .check(&file, result, &format!("a {other} result"));
                    self.seen.other_results.insert(other.to_owned());
                }
            }
        }
        if let Some(steps) = step.get("steps").and_then(Value::as_array) {
            self.seen.traced += 1;
            steps.iter().for_each(|s| self.check_step(s));
        }
    }

    fn check_view(&mut self, view: &Value) {
        self.contract.check("view.json", view, "a view");
        self.seen
            .focus
            .insert(view["focus"].as_str().unwrap().to_owned());
        if let Some(outcome) = view["outcome"].as_str() {
            self.seen.outcomes.insert(outcome.to_owned());
        }
        if let Some(kind) = view["editor"]["target"]["kind"].as_str() {
            self.seen.editors.insert(kind.to_owned());
        }
        if view.get("lines").is_some() {
            self.seen.lines += 1;
        }
        if view["question"]["planReview"].is_object() {
            self.seen.plan_reviews += 1;
        }
    }

    fn check_pi_result(&mut self, result: &Value) {
        self.contract.check("pi-result.json", result, "a pi result");
        self.seen.pi_results += 1;
    }

    fn check_dsh_result(&mut self, result: &Value) {
        self.contract
            .check("dsh-result.json", result, "a dsh result");
        let kind = match result["error"]["code"].as_str() {
            Some(code) => code.to_owned(),
            None => "answer".to_owned(),
        };
        self.seen.dsh_results.insert(kind);
    }

    /// Checks an error reply: a code the method declares, and -32010's data.
    fn check_error(&mut self, method: &str, error: &Value) {
        let code = error["code"].as_i64().unwrap();
        assert!(error["message"].is_string(), "{error}");
        assert!(
            self.contract.errors[method].contains(&code),
            "{method} answered error {code}, which the OpenRPC document does not declare for it: {error}"
        );
        if code == -32010 {
            let validator = &self.contract.error_data;
            assert!(
                validator.is_valid(&error["data"]),
                "error data: {}\n{error}",
                errors(validator, &error["data"])
            );
        }
        self.seen.error_codes.insert(code);
    }

    /// A request that must succeed; its params and result are validated.
    fn ok(&mut self, method: &str, params: Value) -> Value {
        self.check_params(method, &params);
        let result = self.server.ok(method, params);
        self.check_result(method, &result);
        result
    }

    /// A request that must fail; its error is validated (its params may be wrong on purpose).
    fn err(&mut self, method: &str, params: Value) -> Value {
        let error = self.server.err(method, params);
        self.check_error(method, &error);
        error
    }

    /// Sends a request without waiting for its reply; returns its id.
    fn send(&mut self, method: &str, params: Value) -> Value {
        self.check_params(method, &params);
        let id = self.server.fresh_id();
        self.server
            .send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        id
    }

    /// The reply to a request sent with [`Client::send`], validated.
    fn reply(&mut self, method: &str, id: &Value) -> Value {
        let reply = self.server.reply_to(id);
        if let Some(error) = reply.get("error") {
            self.check_error(method, error);
        } else {
            self.check_result(method, &reply["result"]);
        }
        reply
    }

    fn keys(&mut self, session: &str, keys: &str) -> Value {
        self.ok("keys", json!({ "session": session, "keys": keys }))
    }
}

fn pi_payload() -> Value {
    json!({
        "title": "Setup",
        "questions": [
            {
                "id": "scope",
                "label": "Scope",
                "prompt": "How big should the change be?",
                "options": [
                    { "value": "small", "label": "Small (Recommended)", "description": "A focused fix" },
                    { "value": "big", "label": "Big" }
                ]
            },
            {
                "id": "langs",
                "label": "Langs",
                "prompt": "Which languages?",
                "type": "multi",
                "required": true,
                "options": [
                    { "value": "rust", "label": "Rust" },
                    { "value": "go", "label": "Go" },
                    { "value": "py", "label": "Python" }
                ]
            },
            {
                "id": "layout",
                "label": "Layout",
                "prompt": "Pick a layout",
                "type": "preview",
                "options": [
                    { "value": "a", "label": "Stacked", "preview": "A\nB" },
                    { "value": "b", "label": "Side by side", "preview": "A | B" }
                ]
            }
        ]
    })
}

fn dsh_payload() -> Value {
    json!({
        "questions": [
            {
                "id": "plan",
                "header": "Plan",
                "question": "Approve the plan?",
                "detail": "1. Do X\n2. Do Y",
                "options": [{ "label": "Revise" }, { "label": "Approve" }],
                "intent": { "kind": "plan-review", "approve": "Approve" }
            },
            { "id": "why", "question": "Anything else?" },
            {
                "id": "envs",
                "header": "Envs",
                "question": "Where to deploy?",
                "multiSelect": true,
                "options": [
                    { "label": "Staging", "description": "First" },
                    { "label": "Production (Recommended)" }
                ]
            }
        ]
    })
}

/// The pi dialect: every screen kind, every editor, every outcome and every direct method.
fn pi_session(client: &mut Client) {
    client.ok(
        "initialize",
        json!({ "clientInfo": { "name": "schema-test" }, "capabilities": { "hasUI": true } }),
    );
    let s = "pi-main";
    let step = client.ok(
        "open",
        json!({ "session": s, "payload": pi_payload(), "width": 60 }),
    );
    assert_eq!(step["view"]["focus"], "options");
    client.ok("key", json!({ "session": s, "key": "down" }));
    client.ok("key", json!({ "session": s, "key": "up" }));
    let step = client.ok("key", json!({ "session": s, "key": "n" }));
    assert_eq!(step["view"]["editor"]["target"]["kind"], "optionNote");
    client.ok("insert", json!({ "session": s, "text": "why small?" }));
    client.ok("key", json!({ "session": s, "key": "enter" }));
    let step = client.keys(s, "N");
    assert_eq!(step["view"]["editor"]["target"]["kind"], "questionNote");
    client.keys(s, "hmm<Esc>");
    let step = client.keys(s, "3");
    assert_eq!(step["view"]["focus"], "input");
    let step = client.ok(
        "keys",
        json!({ "session": s, "keys": ["m", "i", "n", "e", "enter"], "trace": true }),
    );
    assert_eq!(step["view"]["activeTab"], 1);
    client.ok(
        "keys",
        json!({ "session": s, "keys": "13<Space>", "trace": true }),
    );
    client.keys(s, "<Tab><Down>");
    client.ok("getView", json!({ "session": s, "width": 120 }));
    client.ok("getView", json!({ "session": s }));
    let step = client.keys(s, "2");
    assert_eq!(step["view"]["focus"], "review");
    client.keys(s, "<Down>");
    client.keys(s, "<Down><Up><Up>");
    let result = client.ok("getResult", json!({ "session": s }));
    assert_eq!(result, Value::Null);
    let snapshot = client.ok("snapshot", json!({ "session": s }));
    client.ok(
        "restore",
        json!({ "state": snapshot["state"], "session": "pi-restored" }),
    );
    client.ok("sessions", json!({}));
    let step = client.keys(s, "1");
    assert_eq!(step["status"], "done");
    client.ok("getResult", json!({ "session": s }));
    client.ok("getView", json!({ "session": s }));
    client.err("key", json!({ "session": s, "key": "enter" }));
    assert_eq!(
        client.ok("close", json!({ "session": s })),
        json!({ "closed": true })
    );
    client.ok("close", json!({ "session": s }));
    client.err("getView", json!({ "session": s }));

    // Elaborate, from notes set directly.
    let s = "pi-elaborate";
    client.ok("open", json!({ "session": s, "payload": pi_payload() }));
    client.ok(
        "setNote",
        json!({ "session": s, "questionId": "scope", "text": "depends" }),
    );
    client.ok(
        "setNote",
        json!({ "session": s, "questionId": "langs", "optionValue": "go", "text": "why go?" }),
    );
    client.ok(
        "saveCustom",
        json!({ "session": s, "questionId": "scope", "text": "tiny", "submit": true }),
    );
    client.err(
        "saveCustom",
        json!({ "session": s, "questionId": "nope", "text": "x" }),
    );
    client.err("insert", json!({ "session": s, "text": "no editor" }));
    let step = client.keys(s, "<Tab><Tab>2");
    assert_eq!(step["result"]["details"]["mode"], "elaborate");

    // Submitted from a whole answer set; an invalid one is refused first.
    let s = "pi-answers";
    client.ok("open", json!({ "session": s, "payload": pi_payload() }));
    client.err(
        "submitAnswers",
        json!({ "session": s, "answers": { "scope": { "values": ["huge"] } } }),
    );
    client.ok(
        "submitAnswers",
        json!({
            "session": s,
            "answers": {
                "scope": { "values": ["big"], "note": "n", "optionNotes": { "big": "sure" } },
                "langs": { "values": ["rust", "py"], "customText": "zig" }
            },
            "mode": "submit"
        }),
    );

    // Every way to end without submitting.
    for (s, how) in [
        ("pi-cancel", json!({ "reason": "user" })),
        ("pi-abort", json!({ "reason": "abort" })),
        ("pi-cancel-default", json!({})),
    ] {
        client.ok("open", json!({ "session": s, "payload": pi_payload() }));
        let mut params = how;
        params["session"] = json!(s);
        client.ok("cancel", params);
        client.err("cancel", json!({ "session": s }));
    }
    client.ok(
        "open",
        json!({ "session": "pi-esc", "payload": pi_payload() }),
    );
    client.keys("pi-esc", "<Esc>");
    client.ok(
        "open",
        json!({ "session": "pi-dismiss", "payload": pi_payload() }),
    );
    client.keys("pi-dismiss", "3ab<C-c>");
    let step = client.ok(
        "open",
        json!({ "session": "pi-invalid", "payload": { "title": "Broken", "questions": [{ "id": " ", "options": [] }] } }),
    );
    assert_eq!(step["result"]["details"]["error"]["kind"], "invalid_input");
    client.err("key", json!({ "session": "pi-invalid", "key": "enter" }));
    client.ok(
        "open",
        json!({ "session": "pi-no-ui", "payload": pi_payload(), "hasUI": false }),
    );

    // Errors of the protocol itself.
    client.err("key", json!({ "session": "nobody", "key": "enter" }));
    client.ok(
        "open",
        json!({ "session": "pi-keys", "payload": pi_payload() }),
    );
    client.err("key", json!({ "session": "pi-keys", "key": "hyper+x" }));
    client.err(
        "open",
        json!({ "session": "pi-keys", "payload": pi_payload() }),
    );
    client.err(
        "open",
        json!({ "payload": pi_payload(), "keymap": { "main.fly": ["x"] } }),
    );

    // A pending ask resolves with the tool output.
    let id = client.send(
        "ask",
        json!({ "session": "pi-ask", "payload": pi_payload(), "keymap": { "main.toggle": ["x"] } }),
    );
    client.keys("pi-ask", "1x<Tab><Tab>1");
    client.reply("ask", &id);
}

/// The dsh dialect: plan review, free text, multi-select, every way to end, and the errors.
fn dsh_session(client: &mut Client) {
    let s = "dsh-main";
    let step = client.ok(
        "open",
        json!({ "session": s, "payload": dsh_payload(), "dialect": "dsh", "width": 80 }),
    );
    assert_eq!(
        step["view"]["question"]["planReview"]["approveLabel"],
        "Approve"
    );
    let step = client.keys(s, "<CR>");
    assert_eq!(step["view"]["focus"], "input");
    client.ok("insert", json!({ "session": s, "text": "ship it" }));
    client.keys(s, "<CR>");
    client.keys(s, "12<CR>");
    let step = client.keys(s, "1");
    assert!(step["result"]["answer"].is_object(), "{step}");

    for (s, how) in [
        ("dsh-cancel", json!({ "reason": "user" })),
        ("dsh-abort", json!({ "reason": "abort" })),
    ] {
        client.ok("open", json!({ "session": s, "payload": dsh_payload() }));
        let mut params = how;
        params["session"] = json!(s);
        client.ok("cancel", params);
    }
    client.ok(
        "open",
        json!({ "session": "dsh-no-ui", "payload": dsh_payload(), "hasUI": false }),
    );
    client.ok(
        "open",
        json!({ "session": "dsh-answers", "payload": dsh_payload() }),
    );
    client.ok(
        "submitAnswers",
        json!({
            "session": "dsh-answers",
            "answers": { "answers": [
                { "id": "plan", "selected": ["Approve"] },
                { "id": "why", "selected": [], "custom": "all good" },
                { "id": "envs", "selected": ["Staging"] }
            ] }
        }),
    );
    client.err(
        "open",
        json!({ "payload": { "questions": [] }, "dialect": "dsh" }),
    );
    client.err(
        "open",
        json!({ "payload": { "questions": [{ "id": "a", "question": "Q?", "intent": { "kind": "plan-review", "approve": "Yes" } }] } }),
    );

    // A pending dsh ask resolves with the answer, or fails with -32010.
    let id = client.send(
        "ask",
        json!({ "session": "dsh-ask", "payload": dsh_payload(), "width": 40 }),
    );
    client.keys("dsh-ask", "<CR>x<CR><Tab>1");
    client.reply("ask", &id);
    let id = client.send(
        "ask",
        json!({ "session": "dsh-ask-cancel", "payload": dsh_payload() }),
    );
    client.keys("dsh-ask-cancel", "<Esc>");
    let reply = client.reply("ask", &id);
    assert_eq!(reply["error"]["data"]["code"], "ASK_CANCELLED");
    client.ok("shutdown", json!({}));
}

#[test]
fn every_step_view_and_result_of_a_varied_session_validates() {
    let contract = Contract::load();
    let mut client = Client::start(&contract);
    pi_session(&mut client);
    dsh_session(&mut client);
    let seen = &client.seen;
    let set =
        |items: &[&str]| -> BTreeSet<String> { items.iter().map(|s| (*s).to_owned()).collect() };
    assert_eq!(seen.focus, set(&["input", "note", "options", "review"]));
    assert_eq!(
        seen.outcomes,
        set(&["aborted", "cancelled", "elaborate", "invalid", "submit"])
    );
    assert_eq!(seen.editors, set(&["custom", "optionNote", "questionNote"]));
    assert_eq!(
        seen.dsh_results,
        set(&["ASK_ABORTED", "ASK_CANCELLED", "NO_PROVIDER", "answer"])
    );
    assert_eq!(
        seen.error_codes,
        BTreeSet::from([-32602, -32010, -32003, -32002, -32001])
    );
    assert!(seen.steps > 60, "{} Steps validated", seen.steps);
    assert!(seen.pi_results >= 10, "{} pi results", seen.pi_results);
    assert!(seen.lines > 10, "{} views with lines", seen.lines);
    assert_eq!(seen.traced, 2);
    assert!(seen.plan_reviews >= 2);
    let (status, rest) = client.server.finish();
    assert!(status.success());
    assert_eq!(rest, Vec::<Value>::new());
}

// ---------------------------------------------------------------------------------------------
// Payloads of the test suites and the scenarios
// ---------------------------------------------------------------------------------------------

/// The JSON texts inside `json!(...)` in Rust source: every balanced `{...}` or `[...]` right
/// after `json!(`. Macros holding Rust expressions do not parse as JSON and are left out by
/// the caller.
fn json_macros(source: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = source;
    while let Some(at) = rest.find("json!(") {
        let body = rest[at + "json!(".len()..].trim_start();
        rest = body;
        if !body.starts_with(['{', '[']) {
            continue;
        }
        let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
        for (i, c) in body.char_indices() {
            match c {
                _ if escaped => escaped = false,
                '\\' if in_string => escaped = true,
                '"' => in_string = !in_string,
                '{' | '[' if !in_string => depth += 1,
                '}' | ']' if !in_string => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        found.push(&body[..=i]);
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    found
}

/// Every payload that a test suite or a scenario opens: (where, dialect param, payload).
fn suite_payloads() -> Vec<(String, Option<String>, Value)> {
    let mut payloads = Vec::new();
    let mut sources: Vec<PathBuf> = std::fs::read_dir(root().join("tests/it"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    sources.sort();
    for path in sources {
        let source = std::fs::read_to_string(&path).unwrap();
        for text in json_macros(&source) {
            let Ok(value) = serde_json::from_str::<Value>(text) else {
                continue;
            };
            if value.get("questions").is_some_and(Value::is_array) {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                payloads.push((name, None, value));
            }
        }
    }
    let mut scenarios: Vec<PathBuf> = std::fs::read_dir(protocol().join("scenarios"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    scenarios.sort();
    for path in scenarios {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let items = match read_json(&path) {
            Value::Array(items) => items,
            single => vec![single],
        };
        for item in items {
            let dialect = item["dialect"].as_str().map(str::to_owned);
            payloads.push((
                name.clone(),
                dialect,
                item["open"]["params"]["payload"].clone(),
            ));
        }
    }
    payloads
}

#[test]
fn payloads_the_engine_accepts_validate_against_the_payload_schemas() {
    let contract = Contract::load();
    let mut server = Server::start(&[]);
    let mut accepted = BTreeMap::from([
        ("pi", 0),
        ("dsh", 0),
        ("claude", 0),
        ("codex", 0),
        ("opencode", 0),
        ("mcp", 0),
    ]);
    let mut rejected = 0;
    let payloads = suite_payloads();
    for (i, (place, dialect, payload)) in payloads.iter().enumerate() {
        let session = format!("p{i}");
        let mut params = json!({ "session": session, "payload": payload });
        if let Some(dialect) = dialect {
            params["dialect"] = json!(dialect);
        }
        let reply = server.call("open", params);
        let Some(step) = reply.get("result") else {
            rejected += 1;
            continue;
        };
        let dialect = step["view"]["dialect"].as_str().unwrap();
        let valid = step.get("error").is_none();
        server.ok("close", json!({ "session": session }));
        if !valid {
            rejected += 1;
            continue;
        }
        *accepted.get_mut(dialect).unwrap() += 1;
        let file = if dialect == "pi" {
            "pi-payload.json".to_owned()
        } else {
            format!("{dialect}-request.json")
        };
        contract.check(&file, payload, &format!("a payload of {place}"));
    }
    assert!(accepted["pi"] >= 50, "{accepted:?}");
    assert!(accepted["dsh"] >= 20, "{accepted:?}");
    for other in ["claude", "codex", "opencode", "mcp"] {
        assert!(accepted[other] >= 5, "{accepted:?}");
    }
    assert!(rejected >= 20, "{rejected} rejected payloads");
}

#[test]
fn every_reply_to_the_conformance_scenarios_validates() {
    let contract = Contract::load();
    let mut client = Client::start(&contract);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(protocol().join("scenarios"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    let mut scenarios = 0;
    for path in paths {
        let items = match read_json(&path) {
            Value::Array(items) => items,
            single => vec![single],
        };
        for item in items {
            scenarios += 1;
            let name = item["name"].as_str().unwrap();
            let mut params = item["open"]["params"].clone();
            params["session"] = json!(name);
            if let Some(dialect) = item.get("dialect") {
                params["dialect"] = dialect.clone();
            }
            if item["open"].get("expectError").is_some() {
                client.err("open", params);
                continue;
            }
            client.ok("open", params);
            for step in item["steps"].as_array().into_iter().flatten() {
                let method = step["method"].as_str().unwrap();
                let mut params = step.get("params").cloned().unwrap_or(json!({}));
                params["session"] = json!(name);
                if step.get("expectError").is_some() {
                    client.err(method, params);
                } else {
                    client.ok(method, params);
                }
            }
            client.ok("close", json!({ "session": name }));
        }
    }
    assert!(scenarios >= 100, "{scenarios} scenarios");
    assert!(client.seen.steps >= 200, "{} Steps", client.seen.steps);
    assert_eq!(
        client.seen.other_results,
        BTreeSet::from(["claude", "codex", "mcp", "opencode"].map(str::to_owned))
    );
}

// ---------------------------------------------------------------------------------------------
// (d) The schemas reject what the protocol never sends
// ---------------------------------------------------------------------------------------------

#[test]
fn the_schemas_reject_malformed_documents() {
    let contract = Contract::load();
    let mut server = Server::start(&[]);
    let step = server.ok(
        "open",
        json!({ "session": "s", "payload": pi_payload(), "width": 40 }),
    );
    contract.check("step.json", &step, "the first Step");
    let invalid = |file: &str, instance: &Value, what: &str| {
        assert!(
            !contract.files[file].is_valid(instance),
            "{what} validates against {file}: {instance}"
        );
    };

    let mut view = step["view"].clone();
    view.as_object_mut().unwrap().remove("focus");
    invalid("view.json", &view, "a view without focus");
    let mut view = step["view"].clone();
    view["focus"] = json!("elsewhere");
    invalid("view.json", &view, "a view with an unknown focus");
    let mut view = step["view"].clone();
    view["lines"][0][0]["style"] = json!("blink");
    invalid("view.json", &view, "a span with an unknown style");
    let mut view = step["view"].clone();
    view["lines"] = Value::Null;
    invalid("view.json", &view, "a view with null lines");

    let mut wrong = step.clone();
    wrong["result"] = Value::Null;
    invalid("step.json", &wrong, "a Step with a null result");
    let mut wrong = step.clone();
    wrong["status"] = json!("closed");
    invalid("step.json", &wrong, "a Step with an unknown status");

    let done = server.ok("keys", json!({ "session": "s", "keys": "<Esc>" }));
    let result = &done["result"];
    contract.check("pi-result.json", result, "a cancelled result");
    let mut wrong = result.clone();
    wrong["details"]["title"] = Value::Null;
    invalid("pi-result.json", &wrong, "a pi result with a null title");
    let mut wrong = result.clone();
    wrong["details"]["mode"] = json!("later");
    invalid("pi-result.json", &wrong, "a pi result with an unknown mode");
    let mut wrong = result.clone();
    wrong["details"]["answers"]["scope"] = json!({ "values": ["small"] });
    invalid(
        "pi-result.json",
        &wrong,
        "an answer without labels and indices",
    );
    invalid(
        "dsh-result.json",
        result,
        "a pi result taken for a dsh result",
    );
    let mut wrong = done.clone();
    wrong["result"] = json!({ "answer": { "answers": [] }, "error": { "name": "UserQuestionError", "code": "ASK_CANCELLED", "message": "m" } });
    invalid(
        "step.json",
        &wrong,
        "a Step whose dsh result has both answer and error",
    );

    invalid(
        "dsh-result.json",
        &json!({ "error": { "name": "Error", "code": "ASK_CANCELLED", "message": "m" } }),
        "a dsh error of another name",
    );
    invalid(
        "dsh-result.json",
        &json!({ "error": { "name": "UserQuestionError", "code": "OOPS", "message": "m" } }),
        "a dsh error with an unknown code",
    );
    invalid(
        "dsh-answer.json",
        &json!({ "answers": [{ "id": "a", "selected": [], "custom": null }] }),
        "a dsh answer with a null custom",
    );
    invalid(
        "pi-payload.json",
        &json!({ "questions": [{ "id": "a", "prompt": "p", "type": "preview", "options": [{ "value": "v", "label": "l" }] }] }),
        "a preview question without preview text",
    );
    invalid(
        "pi-payload.json",
        &json!({ "questions": [] }),
        "a payload without questions",
    );
    invalid(
        "pi-payload.json",
        &json!({ "questions": [{ "id": "  ", "prompt": "p", "options": [{ "value": "v", "label": "l" }] }] }),
        "a question with a blank id",
    );
    invalid(
        "dsh-request.json",
        &json!({ "questions": [{ "id": "a", "question": "q", "detail": "d", "options": [{ "label": "Yes" }], "intent": { "kind": "plan-review" } }] }),
        "a plan review without approve",
    );
    invalid(
        "dsh-request.json",
        &json!({ "questions": [{ "id": "a", "question": "q", "options": [{ "label": "Yes" }], "intent": { "kind": "plan-review", "approve": "Yes" } }] }),
        "an intent on a question without detail",
    );
}

// ---------------------------------------------------------------------------------------------
// protocol/README.md follows the code
// ---------------------------------------------------------------------------------------------

fn readme() -> String {
    std::fs::read_to_string(protocol().join("README.md")).expect("protocol/README.md exists")
}

/// The text of the section under `heading` (a whole heading line), up to the next heading of
/// the same or a higher level.
fn section<'a>(text: &'a str, heading: &str) -> &'a str {
    let level = heading.chars().take_while(|&c| c == '#').count();
    let start = text
        .find(&format!("\n{heading}\n"))
        .unwrap_or_else(|| panic!("README has no heading {heading:?}"))
        + heading.len()
        + 2;
    let body = &text[start..];
    let end = body
        .match_indices("\n#")
        .find(|(at, _)| {
            let hashes = body[at + 1..].chars().take_while(|&c| c == '#').count();
            hashes <= level && body[at + 1 + hashes..].starts_with(' ')
        })
        .map_or(body.len(), |(at, _)| at);
    &body[..end]
}

/// The first cells of the table rows of `text`, without their backticks (header and rule
/// rows left out).
fn first_cells(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            l.trim_start_matches("| ")
                .split(" |")
                .next()
                .unwrap()
                .trim_matches('`')
                .to_owned()
        })
        .collect()
}

/// The keymap table as the README must show it, from `Action::ALL`.
fn keymap_table() -> String {
    let mut table = String::from("| action | default keys | hint |\n|---|---|---|\n");
    for action in Action::ALL {
        let keys: Vec<String> = action
            .default_keys()
            .iter()
            .map(|k| format!("`{k}`"))
            .collect();
        table.push_str(&format!(
            "| `{}` | {} | {} |\n",
            action.name(),
            keys.join(" "),
            action.description()
        ));
    }
    table
}

#[test]
fn readme_keymap_table_is_generated_from_the_actions() {
    let table = keymap_table();
    assert!(
        readme().contains(&table),
        "protocol/README.md must hold the keymap table exactly as generated:\n\n{table}"
    );
}

#[test]
fn readme_lists_every_method_error_code_and_style() {
    let text = readme();
    assert_eq!(first_cells(section(&text, "## Methods")), METHODS);
    let doc = schema::openrpc();
    let mut codes: Vec<String> = doc["components"]["errors"]
        .as_object()
        .unwrap()
        .values()
        .map(|e| e["code"].to_string())
        .collect();
    codes.sort();
    let mut listed = first_cells(section(&text, "## Errors"));
    listed.sort();
    assert_eq!(listed, codes);
    let styles: Vec<String> = doc["components"]["schemas"]["Style"]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["const"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(first_cells(section(&text, "### Styles")), styles);
    let focus: Vec<String> = doc["components"]["schemas"]["Focus"]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["const"].as_str().unwrap().to_owned())
        .collect();
    for name in focus {
        assert!(
            text.contains(&format!("`{name}`")),
            "README names focus {name}"
        );
    }
}
