//! The catalogue of infrastructure and data destruction: programs whose
//! subcommands destroy what no file check sees (containers, clusters,
//! cloud storage, databases, the user's processes and schedule). One row
//! per program: when a call of it destroys, and what. Near misses (the
//! same programs reading, planning, listing) fall through every row.

use super::shell::Arg;

/// A row: the program, whether a call destroys (given its known words
/// after the program, and whether any word is computed at run time), and
/// what it destroys.
type Row = (&'static [&'static str], fn(&[&str], bool) -> bool, &'static str);

/// The database clients that run the SQL they are given (as an argument,
/// `--command=`, or on standard input: shell.rs).
pub(super) const SQL_CLIENTS: &[&str] = &[
    "psql",
    "mysql",
    "mariadb",
    "sqlite3",
    "duckdb",
    "cockroach",
    "clickhouse-client",
];

const ROWS: &[Row] = &[
    (
        &["docker", "podman", "nerdctl"],
        |w, computed| {
            let sub = subcommands(w, 2);
            let all = has(w, &["-a", "--all", "--volumes"]);
            matches!(
                sub.as_slice(),
                ["system", "prune"] | ["image", "prune"] | ["container", "prune"]
            ) && all
                || matches!(sub.as_slice(), ["volume", "rm" | "prune"] | ["volume", "remove"] | ["system", "reset"])
                || matches!(sub.as_slice(), ["compose", "down"]) && has(w, &["-v", "--volumes"])
                // `docker rm -f $(docker ps -aq)`: whatever the list holds.
                || computed && matches!(sub.first(), Some(&("rm" | "rmi")))
                || computed && matches!(sub.as_slice(), ["container" | "image", "rm"])
        },
        "deletes containers' data (images, volumes)",
    ),
    (
        &["docker-compose", "podman-compose"],
        |w, _| subcommands(w, 1).first() == Some(&"down") && has(w, &["-v", "--volumes"]),
        "deletes the services' volumes",
    ),
    (
        &["helm"],
        |w, _| {
            matches!(
                subcommands(w, 1).first(),
                Some(&("uninstall" | "delete" | "del" | "un"))
            )
        },
        "uninstalls a release and deletes its resources",
    ),
    (
        &["az"],
        |w, _| {
            let words = subcommands(w, 6);
            matches!(words.as_slice(), ["group", "delete", ..]) || words.contains(&"delete") && has(w, &["--yes", "-y"])
        },
        "deletes cloud resources without asking",
    ),
    (
        &["kubectl", "oc"],
        |w, _| {
            let sub = subcommands(w, 2);
            // What a delete names: `pod x`, `pods/x`, or nothing known (a
            // manifest `-f`/`-k`, a selector): only pods, jobs and events,
            // which their controllers make again or nobody needs, are
            // spared, and only by name.
            let kind = sub.get(1).map(|k| k.split('/').next().unwrap_or(k));
            let spared = matches!(
                kind,
                Some("pod" | "pods" | "po" | "job" | "jobs" | "event" | "events" | "ev")
            );
            sub.first() == Some(&"delete") && (has(w, &["--all", "-A", "--all-namespaces"]) || !spared)
                || sub.first() == Some(&"drain") && has(w, &["--delete-emptydir-data", "--delete-local-data"])
                || sub.first() == Some(&"scale") && w.iter().any(|a| matches!(*a, "--replicas=0"))
                || sub.first() == Some(&"scale") && w.windows(2).any(|p| p[0] == "--replicas" && p[1] == "0")
        },
        "deletes cluster resources (a namespace, a workload, its volumes)",
    ),
    (
        &["terraform", "tofu", "terragrunt"],
        |w, _| {
            // `terragrunt run-all destroy`, `run --all destroy`, `destroy-all`.
            let sub = subcommands(w, 3);
            sub.iter()
                .take_while(|s| matches!(**s, "run-all" | "run" | "destroy" | "destroy-all" | "apply"))
                .any(|s| matches!(*s, "destroy" | "destroy-all"))
                || sub.first() == Some(&"apply") && has(w, &["-destroy", "--destroy"])
        },
        "destroys the infrastructure it manages",
    ),
    (
        &["pulumi"],
        |w, _| subcommands(w, 1).first() == Some(&"destroy"),
        "destroys the infrastructure it manages",
    ),
    (
        &["aws"],
        |w, _| {
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
        |w, _| {
            let words = subcommands(w, 6);
            // Without a terminal (an agent's shell) gcloud takes a
            // prompt's default, which for a delete is yes: `--quiet` or not.
            words.contains(&"delete")
                || words.first() == Some(&"rm") && has(w, &["-r", "-R", "-a"])
                || words.first() == Some(&"rb")
        },
        "deletes cloud resources without asking",
    ),
    (
        &["gh"],
        |w, _| {
            matches!(subcommands(w, 2).as_slice(), ["repo" | "release", "delete"])
                || matches!(subcommands(w, 1).as_slice(), ["api"])
                    && w.windows(2)
                        .any(|p| matches!(p[0], "-X" | "--method") && p[1].eq_ignore_ascii_case("delete"))
        },
        "deletes a repository or a release",
    ),
    (
        &["argocd"],
        |w, _| {
            matches!(
                subcommands(w, 2).as_slice(),
                ["app" | "appset" | "proj" | "cluster", "delete" | "rm"]
            )
        },
        "deletes an application and, cascading, what it deployed",
    ),
    (
        &["kind", "k3d", "minikube", "microk8s"],
        |w, _| {
            let sub = subcommands(w, 2);
            sub.first() == Some(&"delete")
                || matches!(sub.as_slice(), [_, "delete" | "rm"])
                || sub.first() == Some(&"reset")
        },
        "deletes a cluster with its workloads",
    ),
    (
        &["npm", "pnpm", "yarn"],
        |w, _| subcommands(w, 1).first() == Some(&"unpublish"),
        "unpublishes a package (its name cannot be published again for a day)",
    ),
    (
        &["userdel", "deluser", "delgroup", "groupdel"],
        |_, _| true,
        "deletes an account (with --remove-home, its files)",
    ),
    (
        SQL_CLIENTS,
        // `--command=SQL` is SQL too.
        |w, _| {
            w.iter().any(|s| {
                destroys_data(
                    s.split_once('=')
                        .filter(|(o, _)| o.starts_with("--"))
                        .map_or(s, |(_, v)| v),
                )
            })
        },
        "drops or empties database tables",
    ),
    (
        &["redis-cli", "valkey-cli"],
        |w, computed| {
            w.iter()
                .flat_map(|s| s.split_whitespace())
                .any(|s| s.eq_ignore_ascii_case("flushall") || s.eq_ignore_ascii_case("flushdb"))
                // `redis-cli --scan | xargs redis-cli del`: whatever keys come.
                || computed && w.iter().any(|s| s.eq_ignore_ascii_case("del") || s.eq_ignore_ascii_case("unlink"))
        },
        "empties the database",
    ),
    (
        &["mongo", "mongosh"],
        |w, _| {
            w.iter().any(|s| {
                let code: String = s.chars().filter(|c| !c.is_whitespace()).collect();
                [
                    "dropDatabase(",
                    ".drop(",
                    "deleteMany({})",
                    ".remove({})",
                    "dropCollection(",
                ]
                .iter()
                .any(|call| code.contains(call))
            })
        },
        "drops or empties collections",
    ),
    (&["dropdb", "dropuser"], |_, _| true, "deletes a database"),
    (&["mysqladmin"], |w, _| w.contains(&"drop"), "deletes a database"),
    (
        &["zfs", "zpool"],
        |w, _| subcommands(w, 1).first() == Some(&"destroy"),
        "destroys a pool or data set with its data",
    ),
    (
        &["iptables", "ip6tables", "nft", "ufw"],
        |w, _| {
            has(w, &["-F", "--flush"])
                || matches!(subcommands(w, 2).as_slice(), ["flush", "ruleset"])
                || matches!(subcommands(w, 1).first(), Some(&("disable" | "reset")))
        },
        "removes the firewall's rules",
    ),
    (
        &["nc", "ncat", "netcat"],
        |w, _| has(w, &["-e", "-c", "--exec", "--sh-exec"]),
        "hands a shell to another host",
    ),
    // Platforms and frameworks whose own commands delete apps or data.
    (
        &["vagrant"],
        |w, _| subcommands(w, 1).first() == Some(&"destroy"),
        "destroys the machine",
    ),
    (
        &["fly", "flyctl"],
        |w, _| {
            let sub = subcommands(w, 2);
            matches!(
                sub.as_slice(),
                ["apps", "destroy"] | ["destroy", ..] | ["volumes", "destroy"]
            )
        },
        "destroys an app or its volumes",
    ),
    (
        &["heroku"],
        |w, _| {
            matches!(
                subcommands(w, 1).first(),
                Some(&("apps:destroy" | "destroy" | "pg:reset"))
            )
        },
        "destroys an app or its database",
    ),
    (
        &["vercel", "netlify"],
        |w, _| matches!(subcommands(w, 1).first(), Some(&("remove" | "rm" | "sites:delete"))),
        "deletes a deployment or site",
    ),
    (
        &["firebase"],
        |w, _| {
            matches!(
                subcommands(w, 1).first(),
                Some(&("projects:delete" | "database:remove" | "hosting:disable"))
            ) || subcommands(w, 1).first() == Some(&"firestore:delete")
                && has(w, &["--all-collections", "-r", "--recursive"])
        },
        "deletes a project or its data",
    ),
    (
        &["supabase"],
        |w, _| matches!(subcommands(w, 2).as_slice(), ["db", "reset"] | ["projects", "delete"]),
        "empties the database",
    ),
    (
        &["prisma"],
        |w, _| {
            let sub = subcommands(w, 2);
            matches!(sub.as_slice(), ["migrate", "reset"])
                || matches!(sub.as_slice(), ["db", "push"]) && has(w, &["--force-reset"])
        },
        "empties the database",
    ),
    (
        &["rails", "rake"],
        |w, _| {
            subcommands(w, 3).iter().any(|s| {
                matches!(
                    *s,
                    "db:drop" | "db:reset" | "db:purge" | "db:schema:load" | "db:drop:all"
                )
            })
        },
        "drops or empties the database",
    ),
    (
        &["python", "php"],
        |w, _| {
            let sub = subcommands(w, 2);
            matches!(sub.as_slice(), [m, "flush" | "reset_db" | "sqlflush"] if m.ends_with("manage.py"))
                || matches!(sub.as_slice(), [a, "migrate:fresh" | "migrate:reset" | "db:wipe"] if a.ends_with("artisan"))
        },
        "empties the database",
    ),
    (
        &["crontab"],
        |w, _| {
            has(w, &["-r"])
                || w.iter()
                    .any(|s| s.starts_with('-') && !s.starts_with("--") && s.contains('r'))
                // Replaced by nothing (`crontab /dev/null`) or by what
                // standard input holds (`crontab -`, or no operand at all).
                || w.iter().any(|s| matches!(*s, "/dev/null" | "-"))
                || w.iter().all(|s| matches!(*s, "-u") || !s.starts_with('-')) && subcommands(w, 2).len() <= usize::from(w.contains(&"-u"))
        },
        "deletes or replaces the user's crontab",
    ),
    (
        &["kill", "pkill", "killall"],
        |w, _| {
            w.last() == Some(&"-1") && w.len() >= 2
                || has(w, &["-u"]) && w.first() == Some(&"-9")
                // `pkill -f .` matches every process.
                || has(w, &["-f", "--full"]) && matches!(w.last(), Some(&("." | ".*" | "")))
        },
        "kills every process of the user",
    ),
    (
        &["kill"],
        |w, _| w.len() >= 2 && w.last() == Some(&"1"),
        "kills init (process 1)",
    ),
    (
        &["pkill", "killall"],
        |w, _| {
            subcommands(w, 8)
                .iter()
                .any(|t| CRITICAL.contains(&t.trim_start_matches('^').trim_end_matches('$')))
        },
        "kills what keeps the machine reachable or running (sshd, init, the container runtime)",
    ),
    (
        &["systemctl", "service"],
        |w, _| {
            let sub = subcommands(w, 8);
            let system = !has(w, &["--user"]);
            // `service sshd stop` names the unit first.
            let (verb, units): (&str, Vec<&str>) = match sub.as_slice() {
                [unit, verb, ..]
                    if !matches!(*unit, "stop" | "disable" | "mask" | "kill") && matches!(*verb, "stop") =>
                {
                    (verb, vec![unit])
                }
                [verb, units @ ..] => (verb, units.to_vec()),
                [] => ("", Vec::new()),
            };
            system
                && (matches!(
                    verb,
                    "isolate" | "halt" | "poweroff" | "reboot" | "kexec" | "rescue" | "emergency"
                ) || matches!(verb, "stop" | "disable" | "mask" | "kill")
                    && units
                        .iter()
                        .any(|u| CRITICAL.contains(&u.trim_end_matches(".service").trim_end_matches(".socket"))))
        },
        "stops what keeps the machine reachable or protected (ssh, the network, the firewall)",
    ),
];

/// Processes and services whose end cuts the machine off or stops all of
/// its containers.
const CRITICAL: &[&str] = &[
    "sshd",
    "ssh",
    "init",
    "systemd",
    "systemd-networkd",
    "systemd-resolved",
    "networking",
    "network",
    "NetworkManager",
    "firewalld",
    "ufw",
    "iptables",
    "nftables",
    "dockerd",
    "docker",
    "containerd",
    "kubelet",
    "dbus",
    "auditd",
    "systemd-journald",
];

/// Why the program `name` called with `args` destroys infrastructure or
/// data, if it does; an argument that cannot be known counts as any word.
/// Every reading of its options is judged (`kubectl -n prod delete ns x`:
/// `prod` is `-n`'s value, not the subcommand), and any that destroys
/// counts.
pub fn judge(name: &str, args: &[Arg]) -> Option<String> {
    let words: Vec<&str> = args.iter().filter_map(Arg::known).collect();
    let computed = words.len() < args.len();
    let rows: Vec<&Row> = ROWS
        .iter()
        .filter(|(programs, _, _)| programs.contains(&name))
        .collect();
    if rows.is_empty() {
        return None;
    }
    let readings = readings(valued(name), &words);
    rows.into_iter()
        .find(|(_, destroys, _)| readings.iter().any(|w| destroys(w, computed)))
        .map(|(_, _, what)| format!("`{name}` {what}"))
}

/// Options of a program (its global ones, mostly) that take the next word
/// as their value, from each program's own reference.
pub(super) fn valued(program: &str) -> &'static [&'static str] {
    match program {
        "kubectl" | "oc" => &[
            "-n",
            "--namespace",
            "--context",
            "--cluster",
            "--kubeconfig",
            "-s",
            "--server",
            "--user",
            "--token",
            "--as",
            "--as-group",
            "--as-uid",
            "--certificate-authority",
            "--client-certificate",
            "--client-key",
            "--cache-dir",
            "--request-timeout",
            "--tls-server-name",
            "-l",
            "--selector",
            "-o",
            "--output",
            "--field-selector",
            "-f",
            "--filename",
            "-c",
            "--container",
            "--timeout",
            "--grace-period",
            "-v",
            "--v",
            "--profile",
            "--profile-output",
        ],
        "helm" => &[
            "-n",
            "--namespace",
            "--kube-context",
            "--kubeconfig",
            "--kube-apiserver",
            "--kube-token",
            "--kube-as-user",
            "--kube-as-group",
            "--kube-ca-file",
            "--kube-tls-server-name",
            "--registry-config",
            "--repository-cache",
            "--repository-config",
            "--burst-limit",
            "--qps",
            "--timeout",
            "-o",
            "--output",
        ],
        "docker" | "podman" | "nerdctl" => &[
            "--namespace",
            "--address",
            "-H",
            "--host",
            "--context",
            "-c",
            "--config",
            "-l",
            "--log-level",
            "--tlscacert",
            "--tlscert",
            "--tlskey",
            "--url",
            "--connection",
            "--identity",
            "--root",
            "--runroot",
            "--storage-driver",
            "--storage-opt",
            "--cgroup-manager",
            "--network-cmd-path",
            "--events-backend",
            "--runtime",
            "-f",
            "--file",
            "-p",
            "--project-name",
            "--profile",
            "--env-file",
            "--project-directory",
        ],
        "docker-compose" | "podman-compose" => &["-f", "--file", "-p", "--project-name", "--profile", "--env-file"],
        "aws" => &[
            "--profile",
            "--region",
            "--output",
            "--endpoint-url",
            "--query",
            "--cli-read-timeout",
            "--cli-connect-timeout",
            "--color",
            "--ca-bundle",
            "--cli-binary-format",
        ],
        "az" => &["--subscription", "-o", "--output", "--query", "-g", "--resource-group"],
        "gcloud" | "gsutil" => &[
            "--project",
            "--account",
            "--configuration",
            "--format",
            "--verbosity",
            "--billing-project",
            "--impersonate-service-account",
            "--region",
            "--zone",
            "-o",
        ],
        "gh" => &["-R", "--repo", "--hostname"],
        "pulumi" => &["-C", "--cwd", "-s", "--stack", "--color"],
        "terraform" | "tofu" | "terragrunt" => &["-chdir", "-var", "-var-file", "-target"],
        "fly" | "flyctl" => &["-a", "--app", "-c", "--config", "-o", "--org"],
        "heroku" => &["-a", "--app", "-r", "--remote"],
        "vercel" | "netlify" => &[
            "--scope",
            "--token",
            "-A",
            "--local-config",
            "--cwd",
            "--auth",
            "--site",
        ],
        "firebase" => &["-P", "--project", "--config", "--token", "--account"],
        "supabase" => &["--workdir", "--profile", "--project-ref", "--db-url"],
        "prisma" => &["--schema"],
        "zfs" | "zpool" => &[],
        _ => &[],
    }
}

/// How many options a reading may be unsure of (each doubles the
/// readings: 2^6 at most, a few microseconds).
const UNSURE: usize = 6;

/// The word lists `words` may mean, told apart by options: a known
/// value-taking option drops its value, a known `--x=y` form is one word,
/// and an option of unknown kind followed by a plain word is read both
/// ways (its value, or a flag before the next word): the most dangerous
/// reading is among them.
fn readings<'a>(valued: &[&str], words: &[&'a str]) -> Vec<Vec<&'a str>> {
    fn go<'a>(valued: &[&str], words: &[&'a str], unsure: usize, acc: &mut Vec<&'a str>, out: &mut Vec<Vec<&'a str>>) {
        let Some((&w, rest)) = words.split_first() else {
            out.push(acc.clone());
            return;
        };
        let entry = acc.len();
        acc.push(w);
        if w == "--" {
            acc.extend_from_slice(rest);
            out.push(acc.clone());
        } else if let Some((&value, after)) = rest.split_first()
            && w.starts_with('-')
            && w.len() > 1
            && !w.contains('=')
            && !value.starts_with('-')
        {
            if valued.contains(&w) {
                go(valued, after, unsure, acc, out);
            } else if unsure < UNSURE {
                go(valued, after, unsure + 1, acc, out);
                go(valued, rest, unsure + 1, acc, out);
            } else {
                go(valued, rest, unsure, acc, out);
            }
        } else {
            go(valued, rest, unsure, acc, out);
        }
        // As it was on entry: the caller's other reading starts from here.
        acc.truncate(entry);
    }
    let mut out = Vec::new();
    go(valued, words, 0, &mut Vec::with_capacity(words.len()), &mut out);
    out
}

/// The first `n` words that are not options (nor an option's value in
/// `--x=y` form): the subcommand path.
fn subcommands<'a>(words: &[&'a str], n: usize) -> Vec<&'a str> {
    words.iter().copied().filter(|w| !w.starts_with('-')).take(n).collect()
}

/// Whether a flag is given: as itself, as `--flag=value`, or a one-letter
/// flag among others (`-af` gives `-a` and `-f`).
fn has(words: &[&str], flags: &[&str]) -> bool {
    let bundled = |w: &str, f: &str| {
        let letter = f.strip_prefix('-').filter(|l| l.len() == 1 && !f.starts_with("--"));
        let group = w
            .strip_prefix('-')
            .filter(|g| !g.starts_with('-') && (2..=6).contains(&g.len()));
        matches!((letter, group), (Some(l), Some(g)) if g.chars().all(|c| c.is_ascii_alphabetic()) && g.contains(l))
    };
    words.iter().any(|w| {
        flags
            .iter()
            .any(|f| w == f || w.strip_prefix(f).is_some_and(|r| r.starts_with('=')) || bundled(w, f))
    })
}

/// SQL that drops or empties: `DROP TABLE|DATABASE|SCHEMA`, `TRUNCATE`,
/// `DELETE FROM t` or `UPDATE t SET` with no `WHERE`, `ALTER TABLE ...
/// DROP COLUMN`.
fn destroys_data(sql: &str) -> bool {
    let upper = without_comments(sql).to_ascii_uppercase();
    let words: Vec<&str> = upper
        .split(|c: char| c.is_whitespace() || c == ';' || c == '(')
        .filter(|w| !w.is_empty())
        .collect();
    let drops = words.windows(2).any(|p| {
        p[0] == "DROP" && matches!(p[1], "TABLE" | "DATABASE" | "SCHEMA" | "COLLECTION" | "COLUMN")
            || p[0] == "TRUNCATE"
    });
    let deletes_all = upper.split(';').any(|stmt| {
        let s: Vec<&str> = stmt.split_whitespace().collect();
        (s.windows(2).any(|p| p[0] == "DELETE" && p[1] == "FROM") || s.first() == Some(&"UPDATE") && s.contains(&"SET"))
            && !s.contains(&"WHERE")
    });
    drops || deletes_all
}

/// SQL with its comments (`/* ... */`, `-- ...` to the end of the line)
/// made spaces: `DROP/**/TABLE` is `DROP TABLE` to the server.
fn without_comments(sql: &str) -> std::borrow::Cow<'_, str> {
    if !sql.contains("/*") && !sql.contains("--") {
        return sql.into();
    }
    let mut out = String::with_capacity(sql.len());
    let mut rest = sql;
    while !rest.is_empty() {
        if let Some(body) = rest.strip_prefix("/*") {
            rest = body.find("*/").map_or("", |i| &body[i + 2..]);
            out.push(' ');
        } else if let Some(body) = rest.strip_prefix("--") {
            rest = body.find('\n').map_or("", |i| &body[i..]);
            out.push(' ');
        } else {
            let c = rest.chars().next().unwrap_or(' ');
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_read_every_way_they_can_be_and_the_readings_stay_few() {
        let words = ["-n", "prod", "--weird", "x", "delete", "ns", "y"];
        let r = readings(valued("kubectl"), &words);
        // `-n`'s value is dropped; `--weird` is read as taking `x` or not.
        assert_eq!(
            r,
            [
                vec!["-n", "--weird", "delete", "ns", "y"],
                vec!["-n", "--weird", "x", "delete", "ns", "y"]
            ]
        );
        // Sixty unsure options are read at most 2^UNSURE ways.
        let many: Vec<&str> = (0..60).flat_map(|_| ["--opt", "v"]).collect();
        assert!(readings(&[], &many).len() <= 1 << UNSURE);
        // After `--` nothing is an option.
        assert_eq!(readings(&[], &["--", "-n", "x"]), [vec!["--", "-n", "x"]]);
    }
}
