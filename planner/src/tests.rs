use std::time::Duration;

use hookshot_core::HookAction;
use proptest::prelude::*;

use super::*;

fn hook(i: usize, event: EventKind, matcher: MatcherSpec, identity: &str, sequential: bool) -> Arc<HookDef> {
    let command = HookAction::Command {
        command: format!("hook{i}"),
    };
    Arc::new(HookDef {
        matcher,
        timeout: Duration::from_secs(1),
        sequential,
        ..HookDef::new(identity, event, command)
    })
}

fn labels(hooks: &[Arc<HookDef>]) -> Vec<String> {
    hooks.iter().map(|h| h.label().to_string()).collect()
}

#[test]
fn few_and_many_substring_matchers_find_the_same_hooks() {
    // Under and over the count at which one automaton replaces searching
    // for each substring in turn; overlapping and nested patterns.
    for n in [3, 40] {
        let hooks: Vec<Arc<HookDef>> = (0..n)
            .map(|i| {
                let pattern = match i % 3 {
                    0 => format!("t{i}"),
                    1 => format!("ol{i}x"),
                    _ => "ool".to_string(),
                };
                hook(
                    i,
                    EventKind::BeforeTool,
                    MatcherSpec::Regex(pattern),
                    &format!("id{i}"),
                    false,
                )
            })
            .collect();
        let p = Planner::new(&hooks).unwrap();
        let mut matched = 0;
        for name in ["tool1x", "t0", "xt39y", "ool", "nothing", "t3ol4x", ""] {
            let t = Target {
                name: Some(name),
                ..Target::default()
            };
            let found = labels(&p.plan_uncached(EventKind::BeforeTool, t).hooks);
            assert_eq!(
                found,
                labels(&naive_plan(&hooks, EventKind::BeforeTool, t)),
                "{n} hooks, {name}"
            );
            matched += found.len();
        }
        assert!(matched >= n / 3, "{n} hooks: only {matched} matches in all");
    }
}

#[test]
fn gemini_regex_is_unanchored_and_claude_lists_exact() {
    let hooks = vec![
        hook(0, EventKind::BeforeTool, MatcherSpec::Regex("write".into()), "a", false),
        hook(
            1,
            EventKind::BeforeTool,
            MatcherSpec::Exact(vec!["Edit".into(), "Write".into()]),
            "b",
            false,
        ),
        hook(
            2,
            EventKind::BeforeTool,
            MatcherSpec::FullRegex("mcp__.*".into()),
            "c",
            false,
        ),
        hook(3, EventKind::BeforeTool, MatcherSpec::Any, "d", true),
        hook(4, EventKind::AfterTool, MatcherSpec::Any, "e", false),
    ];
    let p = Planner::new(&hooks).unwrap();
    let plan = |n: &str| {
        labels(
            &p.plan(
                EventKind::BeforeTool,
                Target {
                    cwd: None,
                    name: Some(n),
                    model: None,
                    argument: None,
                },
            )
            .hooks,
        )
    };
    // Claude's `Write` and gemini's `write_file` are one tool: a matcher
    // in either agent's words matches both.
    assert_eq!(plan("write_file"), ["hook0", "hook1", "hook3"]);
    assert_eq!(plan("Write"), ["hook0", "hook1", "hook3"]);
    assert_eq!(plan("xmcp__a"), ["hook3"]);
    assert_eq!(plan("mcp__srv__tool"), ["hook2", "hook3"]);
    assert_eq!(
        p.plan(
            EventKind::BeforeTool,
            Target {
                cwd: None,
                name: Some("Write"),
                model: None,
                argument: None,
            }
        )
        .mode,
        Mode::Sequential
    );
    assert_eq!(p.plan(EventKind::AfterTool, Target::default()).mode, Mode::Parallel);
    assert!(p.plan(EventKind::BeforeModel, Target::default()).hooks.is_empty());
}

#[test]
fn argument_filters_match_the_main_argument() {
    let hooks = vec![
        hook(
            0,
            EventKind::BeforeTool,
            MatcherSpec::ToolArgs(vec![("Bash".into(), "git push*".into())]),
            "a",
            false,
        ),
        hook(
            1,
            EventKind::BeforeTool,
            MatcherSpec::ToolArgs(vec![("Write".into(), "src/**".into())]),
            "b",
            false,
        ),
        hook(
            2,
            EventKind::BeforeTool,
            MatcherSpec::ToolArgs(vec![("Write".into(), "*.md".into())]),
            "c",
            false,
        ),
    ];
    let p = Planner::new(&hooks).unwrap();
    let plan = |tool: &str, arg: &str| {
        labels(
            &p.plan(
                EventKind::BeforeTool,
                Target {
                    cwd: None,
                    name: Some(tool),
                    model: None,
                    argument: Some(arg),
                },
            )
            .hooks,
        )
    };
    assert_eq!(plan("Bash", "git push --force origin main"), ["hook0"]);
    assert!(plan("Bash", "git status").is_empty());
    assert_eq!(plan("Write", "src/deep/mod.rs"), ["hook1"]);
    assert_eq!(plan("Write", "README.md"), ["hook2"]);
    assert!(
        plan("Write", "docs/README.md").is_empty(),
        "* does not cross / in a path"
    );
    assert!(plan("Edit", "src/a.rs").is_empty());
}

#[test]
fn events_without_matchers_ignore_them() {
    let hooks = vec![hook(
        0,
        EventKind::BeforeAgent,
        MatcherSpec::Exact(vec!["nope".into()]),
        "a",
        false,
    )];
    let p = Planner::new(&hooks).unwrap();
    assert_eq!(p.plan(EventKind::BeforeAgent, Target::default()).hooks.len(), 1);
}

#[test]
fn same_identity_runs_once_at_highest_precedence() {
    let hooks = vec![
        hook(0, EventKind::BeforeTool, MatcherSpec::Any, "same", false),
        hook(1, EventKind::BeforeTool, MatcherSpec::Any, "other", false),
        hook(2, EventKind::BeforeTool, MatcherSpec::Any, "same", false),
    ];
    let p = Planner::new(&hooks).unwrap();
    assert_eq!(
        labels(&p.plan(EventKind::BeforeTool, Target::default()).hooks),
        ["hook1", "hook2"]
    );
}

#[test]
fn model_prefix_filters() {
    let mut h = (*hook(0, EventKind::BeforeModel, MatcherSpec::Any, "a", false)).clone();
    h.model_prefix = Some("gpt-4".into());
    let p = Planner::new(&[Arc::new(h)]).unwrap();
    assert_eq!(
        p.plan(
            EventKind::BeforeModel,
            Target {
                cwd: None,
                name: None,
                model: Some("gpt-4o"),
                argument: None,
            }
        )
        .hooks
        .len(),
        1
    );
    assert_eq!(
        p.plan(
            EventKind::BeforeModel,
            Target {
                cwd: None,
                name: None,
                model: Some("claude"),
                argument: None,
            }
        )
        .hooks
        .len(),
        0
    );
    assert_eq!(p.plan(EventKind::BeforeModel, Target::default()).hooks.len(), 0);
}

fn matcher() -> impl Strategy<Value = MatcherSpec> {
    let name = prop::sample::select(vec!["read_file", "write_file", "Bash", "Write", "mcp__s1__t", "ls"]);
    prop_oneof![
        Just(MatcherSpec::Any),
        prop::collection::vec(name.clone(), 1..3)
            .prop_map(|v| MatcherSpec::Exact(v.into_iter().map(String::from).collect())),
        // Literal forms (probes) and real regexes, mixed.
        prop::sample::select(vec![
            "file",
            "^read",
            "e$",
            "mcp__s\\d+__.*",
            "B|W",
            "x",
            "^write_.*",
            "read_file|^mcp__s1__.*",
            "^ls$",
            ".*_file",
            "^.*ite",
            "_t$|^B",
            "",
            "^",
            ".*",
            "fi(le)",
            "[rw]",
            "ri\\.?te",
            "^$",
        ])
        .prop_map(|p| MatcherSpec::Regex(p.into())),
        prop::sample::select(vec![
            "read_.*",
            "Write|Bash",
            "mcp__.*",
            "l.",
            ".*file",
            "ls|.*__t",
            "Bash|mcp__s\\d__.*",
            "re.*_f.*",
        ])
        .prop_map(|p| MatcherSpec::FullRegex(p.into())),
        // JavaScript-only matchers, on the ECMAScript engine.
        prop::sample::select(vec!["^(?!Bash$).*", "\\<Bash", "(?<=mcp__)s1", "^\\w+_file$", "(.)\\1"])
            .prop_map(|p| MatcherSpec::Script(p.into())),
    ]
}

proptest! {
    #[test]
    fn compiled_equals_naive(
        defs in prop::collection::vec(
            (prop::sample::select(vec![EventKind::BeforeTool, EventKind::AfterTool, EventKind::BeforeAgent]),
             matcher(), 0usize..6, any::<bool>()), 0..40),
        target in prop::sample::select(vec!["read_file", "write_file", "Bash", "Write", "mcp__s1__t", "ls", "", "mcp__s12__t", "fi", "é_file",
            // Literals in the middle: tell prefixes, suffixes and substrings apart.
            "unread_file", "xmcp__s1__t", "aBash", "ls_x", "file_x", "the_write_file", "Writes"]),
        event in prop::sample::select(vec![EventKind::BeforeTool, EventKind::AfterTool, EventKind::BeforeAgent]),
        argument in prop::sample::select(vec!["src/a/b.rs", "x.rs", "git push -f", "acb", "a/b"]),
    ) {
        let hooks: Vec<Arc<HookDef>> = defs.into_iter().enumerate()
            .map(|(i, (e, m, id, seq))| hook(i, e, m, &format!("id{id}"), seq)).collect();
        let p = Planner::new(&hooks).unwrap();
        let t = Target { name: Some(target), model: None, argument: Some(argument), cwd: None };
        let compiled = labels(&p.plan(event, t).hooks);
        let naive = labels(&naive_plan(&hooks, event, t));
        prop_assert_eq!(&compiled, &naive);
        // A second plan may come from the cache: it must be the same.
        prop_assert_eq!(labels(&p.plan(event, t).hooks), naive);
    }
}

proptest! {
    #[test]
    fn dedup_is_idempotent_and_leaves_unique_identities(
        ids in prop::collection::vec(0usize..5, 0..20),
    ) {
        let hooks: Vec<Arc<HookDef>> = ids.iter().enumerate()
            .map(|(i, id)| hook(i, EventKind::BeforeTool, MatcherSpec::Any, &format!("id{id}"), false)).collect();
        let p = Planner::new(&hooks).unwrap();
        let once = p.plan(EventKind::BeforeTool, Target::default()).hooks;
        let again = Planner::new(&once).unwrap().plan(EventKind::BeforeTool, Target::default()).hooks;
        prop_assert_eq!(labels(&once), labels(&again));
        let mut identities: Vec<&str> = once.iter().map(|h| h.identity.as_str()).collect();
        let n = identities.len();
        identities.sort_unstable();
        identities.dedup();
        prop_assert_eq!(identities.len(), n);
        // The kept copy is the last (highest precedence) one.
        for h in &once {
            let last = hooks.iter().rposition(|x| x.identity == h.identity).unwrap();
            prop_assert_eq!(h.label(), hooks[last].label());
        }
    }
}

/// Regex patterns built from the pieces that decide how a matcher is
/// classified: literals, escapes (`\.`, `\<`, `\b`, `\n`), classes, dots
/// with and without the `s` flag, repetitions, groups, alternations,
/// anchors and flags.
fn pattern() -> impl Strategy<Value = String> {
    let atom = prop::sample::select(vec![
        "a", "b", "ab", "_", "x_y", "<", ">", "\\.", "\\<", "\\>", "\\b", "\\B", "\\n", ".", " ", "[ab]", "\\d", "\\w",
        "é", "\\A", "\\z", "-", "a1",
    ])
    .prop_map(String::from);
    let quant = prop::sample::select(vec!["", "", "", "*", "+", "?", "*?", "{2}"]);
    let piece = prop_oneof![
        4 => (atom, quant).prop_map(|(a, q)| format!("{a}{q}")),
        2 => Just(".*".to_string()),
        1 => Just("(?s:.*)".to_string()),
        1 => Just(".*?".to_string()),
    ];
    let concat = prop::collection::vec(piece, 0..4).prop_map(|v| v.concat());
    let alts = prop::collection::vec(concat, 1..3).prop_map(|v| v.join("|"));
    let grouped = prop_oneof![
        3 => alts.clone(),
        1 => alts.clone().prop_map(|a| format!("({a})")),
        1 => (alts.clone(), alts).prop_map(|(a, b)| format!("({a})x|{b}")),
    ];
    (
        prop::sample::select(vec!["", "", "", "(?i)", "(?s)", "(?m)"]),
        prop::sample::select(vec!["", "^"]),
        grouped,
        prop::sample::select(vec!["", "$"]),
    )
        .prop_map(|(f, s, body, e)| format!("{f}{s}{body}{e}"))
}

fn target_text() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::collection::vec(
            prop::sample::select(vec![
                'a', 'b', '_', '<', '>', '.', '\n', ' ', 'x', 'y', '1', 'é', 'A', '-'
            ]),
            0..7
        )
        .prop_map(|v| v.into_iter().collect()),
        prop::sample::select(vec![
            "ab",
            "x_y",
            "ab\nab",
            "\nab",
            "ab\n",
            "a.b",
            "<ab>",
            "write_file",
            "a b"
        ])
        .prop_map(String::from),
    ]
}

proptest! {
    // 1,500 cases of a small pattern language; 4,000 took 7.5 s of an
    // unoptimized test run, the slowest test of the suite.
    #![proptest_config(ProptestConfig::with_cases(1500))]
    #[test]
    fn every_matcher_means_what_its_regex_means(pat in pattern(), full in any::<bool>(), target in target_text()) {
        let regex = if full { format!("^(?:{pat})$") } else { pat.clone() };
        let Ok(re) = regex::Regex::new(&regex) else { return Ok(()) };
        let spec = if full { MatcherSpec::FullRegex(pat.clone()) } else { MatcherSpec::Regex(pat.clone()) };
        let hooks = vec![hook(0, EventKind::BeforeTool, spec, "h", false)];
        let p = Planner::new(&hooks).unwrap();
        let t = Target { name: Some(&target), model: None, argument: None, cwd: None };
        let planned = !p.plan(EventKind::BeforeTool, t).hooks.is_empty();
        prop_assert_eq!(
            planned,
            re.is_match(&target),
            "pattern {:?} (full: {}) on {:?}, classified as {:?}",
            pat, full, target, classify::probes(&pat, full)
        );
    }
}

#[test]
fn the_shortcuts_that_once_differed_from_the_regex() {
    let fires = |pat: &str, full: bool, target: &str| {
        let spec = if full {
            MatcherSpec::FullRegex(pat.into())
        } else {
            MatcherSpec::Regex(pat.into())
        };
        let p = Planner::new(&[hook(0, EventKind::BeforeTool, spec, "h", false)]).unwrap();
        let t = Target {
            cwd: None,
            name: Some(target),
            model: None,
            argument: None,
        };
        !p.plan(EventKind::BeforeTool, t).hooks.is_empty()
    };
    // `\<` and `\>` are word boundaries, not the characters < and >.
    assert!(fires("\\<write_file\\>", false, "write_file"));
    assert!(!fires("\\<write_file\\>", false, "rewrite_file"));
    // `.` does not cross a newline.
    assert!(fires("^foo.*$", false, "foobar"));
    assert!(!fires("^foo.*$", false, "foo\nbar"));
    assert!(!fires("mcp__.*", true, "mcp__x\ny"));
}
