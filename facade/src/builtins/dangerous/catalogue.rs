//! The catalogue of infrastructure and data destruction: programs whose
//! subcommands destroy what no file check sees (containers, clusters,
//! cloud storage, databases, the user's processes and schedule). One row
//! per program: when a call of it destroys, and what. Near misses (the
//! same programs reading, planning, listing) fall through every row.

use super::shell::Arg;

/// A row: the program, whether a call (its known words after the program)
/// destroys, and what it destroys.
type Row = (&'static [&'static str], fn(&[&str]) -> bool, &'static str);

const ROWS: &[Row] = &[
    (
        &["docker", "podman"],
        |w| {
            let sub = subcommands(w, 2);
            let all = has(w, &["-a", "--all", "--volumes"]);
            matches!(
                sub.as_slice(),
                ["system", "prune"] | ["image", "prune"] | ["container", "prune"]
            ) && all
                || matches!(sub.as_slice(), ["volume", "rm" | "prune"] | ["volume", "remove"])
        },
        "deletes containers' data (images, volumes)",
    ),
    (
        &["kubectl", "oc"],
        |w| {
            let sub = subcommands(w, 2);
            sub.first() == Some(&"delete")
                && (has(w, &["--all", "-A", "--all-namespaces"])
                    || matches!(sub.get(1), Some(&("namespace" | "namespaces" | "ns" | "pv" | "pvc"))))
        },
        "deletes cluster resources wholesale (a namespace, --all)",
    ),
    (
        &["terraform", "tofu", "terragrunt"],
        |w| {
            let sub = subcommands(w, 1);
            sub.first() == Some(&"destroy") || sub.first() == Some(&"apply") && has(w, &["-destroy", "--destroy"])
        },
        "destroys the infrastructure it manages",
    ),
    (
        &["pulumi"],
        |w| subcommands(w, 1).first() == Some(&"destroy"),
        "destroys the infrastructure it manages",
    ),
    (
        &["aws"],
        |w| {
            let sub = subcommands(w, 2);
            matches!(sub.as_slice(), ["s3", "rm"]) && has(w, &["--recursive"])
                || matches!(sub.as_slice(), ["s3", "rb"]) && has(w, &["--force"])
                || matches!(sub.as_slice(), ["s3", "sync"]) && has(w, &["--delete"])
                || sub
                    .get(1)
                    .is_some_and(|s| s.starts_with("delete-") || s.starts_with("terminate-"))
        },
        "deletes cloud storage or resources",
    ),
    (
        &["gcloud", "gsutil"],
        |w| {
            let words = subcommands(w, 6);
            words.contains(&"delete") && has(w, &["--quiet", "-q"])
                || words.first() == Some(&"rm") && has(w, &["-r", "-R", "-a"])
                || words.first() == Some(&"rb")
        },
        "deletes cloud resources without asking",
    ),
    (
        &["gh"],
        |w| matches!(subcommands(w, 2).as_slice(), ["repo", "delete"]),
        "deletes a repository",
    ),
    (
        &[
            "psql",
            "mysql",
            "mariadb",
            "sqlite3",
            "duckdb",
            "cockroach",
            "clickhouse-client",
        ],
        |w| w.iter().any(|s| destroys_data(s)),
        "drops or empties database tables",
    ),
    (
        &["redis-cli", "valkey-cli"],
        |w| {
            w.iter()
                .any(|s| s.eq_ignore_ascii_case("flushall") || s.eq_ignore_ascii_case("flushdb"))
        },
        "empties the database",
    ),
    (
        &["crontab"],
        |w| {
            has(w, &["-r"])
                || w.iter()
                    .any(|s| s.starts_with('-') && !s.starts_with("--") && s.contains('r'))
        },
        "deletes the user's crontab",
    ),
    (
        &["kill", "pkill", "killall"],
        |w| w.last() == Some(&"-1") && w.len() >= 2 || has(w, &["-u"]) && w.first() == Some(&"-9"),
        "kills every process of the user",
    ),
];

/// Why the program `name` called with `args` destroys infrastructure or
/// data, if it does; an argument that cannot be known counts as any word.
pub fn judge(name: &str, args: &[Arg]) -> Option<String> {
    let (_, destroys, what) = ROWS.iter().find(|(programs, _, _)| programs.contains(&name))?;
    let words: Vec<&str> = args.iter().filter_map(Arg::known).collect();
    destroys(&words).then(|| format!("`{name}` {what}"))
}

/// The first `n` words that are not options (nor an option's value in
/// `--x=y` form): the subcommand path.
fn subcommands<'a>(words: &[&'a str], n: usize) -> Vec<&'a str> {
    words.iter().copied().filter(|w| !w.starts_with('-')).take(n).collect()
}

fn has(words: &[&str], flags: &[&str]) -> bool {
    words.iter().any(|w| {
        flags
            .iter()
            .any(|f| w == f || w.strip_prefix(f).is_some_and(|r| r.starts_with('=')))
    })
}

/// SQL that drops or empties: `DROP TABLE|DATABASE|SCHEMA`, `TRUNCATE`,
/// `DELETE FROM t` with no `WHERE`.
fn destroys_data(sql: &str) -> bool {
    let upper = sql.to_ascii_uppercase();
    let words: Vec<&str> = upper
        .split(|c: char| c.is_whitespace() || c == ';' || c == '(')
        .filter(|w| !w.is_empty())
        .collect();
    let drops = words.windows(2).any(|p| {
        p[0] == "DROP" && matches!(p[1], "TABLE" | "DATABASE" | "SCHEMA" | "COLLECTION") || p[0] == "TRUNCATE"
    });
    let deletes_all = upper.split(';').any(|stmt| {
        let s: Vec<&str> = stmt.split_whitespace().collect();
        s.windows(2).any(|p| p[0] == "DELETE" && p[1] == "FROM") && !s.contains(&"WHERE")
    });
    drops || deletes_all
}
