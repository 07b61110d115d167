//! The secret rules, in the shape gitleaks gives its own: an id, a
//! pattern, the keywords that must occur for the pattern to be worth
//! running (one case-insensitive Aho-Corasick pass picks the rules), and
//! for generic rules an entropy floor. Provider tokens are matched by their
//! documented prefixes and lengths; a token glued to a word character
//! (`KEY_AKIA...`) is still a token, so no rule relies on `\b` before it.

use std::sync::OnceLock;

use aho_corasick::AhoCorasick;
use regex::Regex;

/// One rule.
pub struct Rule {
    /// What it finds, as shown in `***REDACTED:id***`.
    pub id: &'static str,
    /// The pattern; the secret is capture group 1 when there is one, else
    /// the whole match.
    pattern: &'static str,
    /// Words, one of which must occur (any case) for the rule to run.
    keywords: &'static [&'static str],
    /// Bits of entropy per character the secret must reach (0: none).
    entropy: f64,
    /// The pattern also runs over the text upper-cased (a key id that
    /// went through `tr a-z A-Z` or a lowercasing log is still the key).
    fold: bool,
    /// The secret must hold a digit (a short value that is a word, such
    /// as `required`, names no key).
    digit: bool,
    /// A value that reads as code (`settings.password`, `get_pw()`,
    /// `None`) names a secret rather than holds one.
    not_code: bool,
    /// Group 1 is the name the value is given to; a name that says what
    /// the value is not (`_URL`, `_ID`, `_VERSION`) holds no secret.
    named: bool,
    compiled: OnceLock<Regex>,
}

const fn rule(id: &'static str, pattern: &'static str, keywords: &'static [&'static str]) -> Rule {
    Rule {
        id,
        pattern,
        keywords,
        entropy: 0.0,
        fold: false,
        digit: false,
        not_code: false,
        named: false,
        compiled: OnceLock::new(),
    }
}

impl Rule {
    const fn entropy(mut self, bits: f64) -> Rule {
        self.entropy = bits;
        self
    }

    const fn fold(mut self) -> Rule {
        self.fold = true;
        self
    }

    const fn digit(mut self) -> Rule {
        self.digit = true;
        self
    }

    const fn not_code(mut self) -> Rule {
        self.not_code = true;
        self
    }

    const fn named(mut self) -> Rule {
        self.named = true;
        self
    }

    fn regex(&self) -> &Regex {
        self.compiled
            .get_or_init(|| Regex::new(self.pattern).expect("built-in secret rules compile"))
    }
}

/// The rules. Provider rules first: a generic rule must not claim a
/// provider token under a vaguer name.
pub fn rules() -> &'static [Rule] {
    static RULES: OnceLock<Vec<Rule>> = OnceLock::new();
    RULES.get_or_init(|| {
        vec![
            // A PEM or PGP private key, with or without its END line (a
            // truncated paste is still the key).
            rule(
                "private_key",
                r"(?i)-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=:,\- \t\r\n\\]*)",
                &["private key"],
            ),
            // A key's base64 body without its BEGIN line (pasted, wrapped
            // at any width, or in a JSON string with `\n` escapes): the
            // DER openings of PKCS#1 and PKCS#8 RSA, SEC1 and PKCS#8 EC and
            // PKCS#8 Ed25519 private keys, never those of public keys or
            // certificates.
            rule(
                "private_key",
                concat!(
                    r"(?:^|[^A-Za-z0-9+/])((?:MII[A-Za-z0-9+/]{3}IB(?:ADANBgkqhkiG9w0BAQEFAASC|AAKC)|MHcCAQEEI|",
                    r"MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg|MC4CAQAwBQYDK2VwBCIEI)",
                    r"[A-Za-z0-9+/=]*(?:(?:\r?\n|\\n)[ \t]*[A-Za-z0-9+/=]{16,})*)"
                ),
                &["mii", "mhccaqeei", "mc4caqaw"],
            ),
            // An OpenSSH private key's body (base64 of `openssh-key-v1`).
            rule(
                "private_key",
                r"(b3BlbnNzaC1rZXktdjE[A-Za-z0-9+/=]*(?:(?:\r?\n|\\n)[ \t]*[A-Za-z0-9+/=]{16,})*)",
                &["b3blbnnzac1rzxktdje"],
            ),
            rule("aws_access_key", r"((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})(?:[^A-Z0-9]|$)", &["a3t", "akia", "asia", "abia", "acca"]).fold(),
            rule(
                "aws_secret_key",
                r#"(?i)aws.{0,20}?(?:secret|private)?.{0,20}?key["']?\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})(?:[^A-Za-z0-9/+=]|$)"#,
                &["aws"],
            )
            .entropy(3.5),
            rule("github_token", r"((?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255})", &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"]),
            rule("github_token", r"(github_pat_[A-Za-z0-9_]{40,255})", &["github_pat_"]),
            rule(
                "gitlab_token",
                r"((?:glpat|gldt|glptt|glrt|glsoat|glcbt|glft|glimt|glagent|gloas|glffct)-[A-Za-z0-9_\-]{20,})",
                &["glpat-", "gldt-", "glptt-", "glrt-", "glsoat-", "glcbt-", "glft-", "glimt-", "glagent-", "gloas-", "glffct-"],
            ),
            // A runner registration token, and the session cookie.
            rule("gitlab_token", r"(GR1348941[A-Za-z0-9_\-]{20,})", &["gr1348941"]),
            rule("gitlab_token", r"_gitlab_session=([0-9a-z]{32})", &["_gitlab_session="]),
            rule("slack_token", r"(xox[abposre]-[A-Za-z0-9\-]{10,})", &["xox"]),
            rule("slack_token", r"(?i)(xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+)", &["xapp-"]),
            rule("slack_webhook", r"(hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{20,})", &["hooks.slack.com"]),
            rule("google_api_key", r"(AIza[0-9A-Za-z_\-]{35})", &["aiza"]),
            rule("google_oauth_token", r"(ya29\.[0-9A-Za-z_\-]{20,})", &["ya29."]),
            rule("anthropic_api_key", r"(sk-ant-(?:api|admin)\d\d-[A-Za-z0-9_\-]{20,})", &["sk-ant-"]),
            rule("api_key", r"(sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{20,})", &["sk-"]).entropy(3.0),
            // `pk_` keys are publishable: meant for browsers, not secrets.
            rule("stripe_key", r"((?:sk|rk)_(?:live|test|prod)_[0-9A-Za-z]{10,99})", &["_live_", "_test_", "_prod_"]),
            rule("npm_token", r"(npm_[A-Za-z0-9]{36})", &["npm_"]),
            rule("pypi_token", r"(pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,})", &["pypi-ageichlwas5vcmc"]),
            rule("huggingface_token", r"(hf_[A-Za-z]{34})", &["hf_"]),
            // Model providers with prefixes of their own, and Vault.
            rule("groq_api_key", r"(gsk_[A-Za-z0-9]{52})", &["gsk_"]),
            rule("replicate_token", r"(r8_[A-Za-z0-9]{37})", &["r8_"]),
            rule("xai_api_key", r"(xai-[A-Za-z0-9]{80})", &["xai-"]),
            rule("perplexity_api_key", r"(pplx-[A-Za-z0-9]{48})", &["pplx-"]),
            rule("langsmith_key", r"(lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10})", &["lsv2_"]),
            rule("tavily_key", r"(tvly-(?:dev-|prod-)?[A-Za-z0-9]{32})", &["tvly-"]),
            rule("nvidia_key", r"(nvapi-[A-Za-z0-9_\-]{64})", &["nvapi-"]),
            // Package registries.
            rule("rubygems_key", r"(rubygems_[a-f0-9]{48})", &["rubygems_"]),
            rule("cratesio_token", r"\b(cio[A-Za-z0-9]{32})\b", &["cio"]).entropy(3.0),
            rule("nuget_key", r"\b(oy2[a-z0-9]{43})\b", &["oy2"]),
            // `.npmrc`: `//host/:_authToken=`, `_auth=` (base64 of
            // user:password), `_password=` (base64).
            rule("npmrc_auth", r#"(?:^|[\s"'/:])_(?:authToken|auth|password)\s*=\s*["']?([^\s"'$]{6,})"#, &["_auth", "_password"]),
            rule("vault_token", r"\b((?:hvs|hvb)\.[A-Za-z0-9_\-]{24,})", &["hvs.", "hvb."]),
            rule("sendgrid_key", r"(SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43})", &["sg."]),
            rule("digitalocean_token", r"(do[opr]_v1_[a-f0-9]{64})", &["_v1_"]),
            rule("shopify_token", r"(shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32})", &["shpat_", "shpca_", "shppa_", "shpss_"]),
            rule("docker_token", r"(dckr_pat_[A-Za-z0-9_\-]{27,})", &["dckr_pat_"]),
            rule("linear_key", r"(lin_api_[A-Za-z0-9]{40})", &["lin_api_"]),
            rule("databricks_token", r"(dapi[a-f0-9]{32}(?:-\d)?)", &["dapi"]).entropy(3.0),
            rule("square_token", r"(sq0(?:atp|csp)-[0-9A-Za-z_\-]{22,60})", &["sq0atp-", "sq0csp-"]),
            rule("telegram_bot_token", r"(\d{8,10}:AA[0-9A-Za-z_\-]{33})", &[":aa"]),
            rule("age_secret_key", r"(AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58})", &["age-secret-key-1"]),
            // A shared access signature's `sig=` (Azure storage URLs and
            // connection strings).
            rule("azure_sas", r"(?i)[?&;]sig=([A-Za-z0-9%+/=]{20,})", &["sig="]),
            rule("discord_webhook", r"(discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_\-]{60,})", &["/api/webhooks/"]),
            rule("sentry_dsn", r"https://([a-f0-9]{32})@[^/\s]*sentry\.io", &["sentry.io"]),
            rule("newrelic_key", r"(NRAK-[A-Z0-9]{27})", &["nrak-"]),
            // More providers by their documented prefixes (gitleaks' rules
            // for the same services).
            rule("stripe_webhook_secret", r"(whsec_[A-Za-z0-9]{32,})", &["whsec_"]),
            rule("notion_token", r"((?:ntn_[A-Za-z0-9]{40,50})|(?:secret_[A-Za-z0-9]{43}))(?:[^A-Za-z0-9]|$)", &["ntn_", "secret_"]),
            rule("supabase_token", r"(sbp_(?:[a-f0-9]{40}|[A-Za-z0-9]{40,60}))", &["sbp_"]),
            rule("planetscale_token", r"(pscale_(?:tkn|pw|oauth)_[A-Za-z0-9=\-_.]{32,64})", &["pscale_"]),
            rule("netlify_token", r"(nfp_[A-Za-z0-9]{36,40})", &["nfp_"]),
            rule("figma_token", r"(fig[dou]_[A-Za-z0-9_\-]{40,})", &["figd_", "figo_", "figu_"]),
            rule("mailgun_key", r"(key-[a-f0-9]{32})(?:[^a-f0-9]|$)", &["key-"]).entropy(3.0),
            rule("mapbox_token", r"(sk\.eyJ[A-Za-z0-9_\-]{20,}\.[A-Za-z0-9_\-]{20,})", &["sk.eyj"]),
            rule("atlassian_token", r"(ATATT3[A-Za-z0-9_\-=]{150,})", &["atatt3"]),
            rule("grafana_token", r"((?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})|(?:glc_[A-Za-z0-9+/]{32,400}={0,2}))", &["glsa_", "glc_"]),
            rule("sentry_token", r"(sntry[su]_[A-Za-z0-9+/=_\-]{40,})", &["sntrys_", "sntryu_"]),
            rule("alibaba_access_key", r"(LTAI[A-Za-z0-9]{20})(?:[^A-Za-z0-9]|$)", &["ltai"]),
            rule("discord_bot_token", r"(?:^|[^A-Za-z0-9_\-.])([MNO][A-Za-z0-9_\-]{23,27}\.[A-Za-z0-9_\-]{6,7}\.[A-Za-z0-9_\-]{27,40})(?:[^A-Za-z0-9_\-.]|$)", &["mt", "mj", "mz", "nd", "nt", "nj", "nz", "od", "ot", "oq"]).entropy(3.5),
            rule("fly_token", r"((?:fo1_[A-Za-z0-9_\-]{43})|(?:fm[12][ar]?_[A-Za-z0-9+/]{50,}={0,3}))", &["fo1_", "fm1", "fm2"]),
            rule("doppler_token", r"(dp\.(?:pt|st|ct|sa|scim|audit)\.[A-Za-z0-9]{40,44})", &["dp.pt.", "dp.st.", "dp.ct.", "dp.sa.", "dp.scim.", "dp.audit."]),
            rule("pulumi_token", r"(pul-[a-f0-9]{40})", &["pul-"]),
            rule("postman_key", r"(PMAK-[a-f0-9]{24}-[a-f0-9]{34})", &["pmak-"]),
            rule("typeform_token", r"(tfp_[A-Za-z0-9_\-.=]{40,64})", &["tfp_"]),
            rule("terraform_cloud_token", r"([A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_\-=]{60,70})", &[".atlasv1."]),
            rule("shippo_token", r"(shippo_(?:live|test)_[a-f0-9]{40})", &["shippo_"]),
            rule("airtable_token", r"\b(pat[A-Za-z0-9]{14}\.[a-f0-9]{64})\b", &["pat"]),
            rule("twilio_key", r"\b(SK[0-9a-fA-F]{32})\b", &["sk"]).entropy(3.0).digit(),
            rule("square_token", r"\b(EAAA[A-Za-z0-9_\-]{60})\b", &["eaaa"]).entropy(3.5),
            rule("render_key", r"\b(rnd_[A-Za-z0-9]{32})\b", &["rnd_"]),
            // The rest of gitleaks' default catalogue with a prefix of its
            // own (measured against it: docs/BUILTINS.md).
            rule("onepassword_key", r"(A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5})(?:[^A-Z0-9]|$)", &["a3-"]).entropy(3.8),
            rule("onepassword_key", r"(ops_eyJ[A-Za-z0-9+/]{250,}={0,3})", &["ops_eyj"]).entropy(4.0),
            rule("adobe_client_secret", r"(?:^|[^A-Za-z0-9])(p8e-[A-Za-z0-9]{32})(?:[^A-Za-z0-9]|$)", &["p8e-"]).entropy(2.0).digit(),
            rule("artifactory_token", r"(?:^|[^A-Za-z0-9])((?:AKCp[A-Za-z0-9]{69})|(?:cmVmd[A-Za-z0-9]{59}))(?:[^A-Za-z0-9]|$)", &["akcp", "cmvmd"]).entropy(4.5),
            rule("authress_key", r"((?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\.[A-Za-z0-9]{4,6}\.acc[_\-][A-Za-z0-9\-]{10,32}\.[A-Za-z0-9+/_=\-]{30,120})", &[".acc_", ".acc-"]).entropy(2.0),
            rule("clickhouse_key", r"(?:^|[^A-Za-z0-9])(4b1d[A-Za-z0-9]{38})(?:[^A-Za-z0-9]|$)", &["4b1d"]).entropy(3.0),
            rule("clojars_token", r"(?i)(CLOJARS_[a-z0-9]{60})", &["clojars_"]).entropy(2.0),
            rule("cloudflare_origin_ca_key", r"(v1\.0-[a-f0-9]{24}-[a-f0-9]{146})", &["v1.0-"]),
            rule("defined_networking_token", r"(?i)(dnkey-[a-z0-9=_\-]{26}-[a-z0-9=_\-]{52})", &["dnkey-"]),
            rule("duffel_token", r"(duffel_(?:test|live)_[A-Za-z0-9_\-=]{43})", &["duffel_"]).entropy(2.0),
            rule("dynatrace_token", r"(dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64})", &["dt0c01."]).entropy(4.0),
            rule("easypost_key", r"(?:^|[^A-Za-z0-9])(EZ[AT]K[A-Za-z0-9]{54})(?:[^A-Za-z0-9]|$)", &["ezak", "eztk"]).entropy(2.0),
            rule("facebook_token", r"(?:^|[^A-Za-z0-9])(EAA[MC][A-Za-z0-9]{100,})", &["eaam", "eaac"]).entropy(4.0),
            rule("flutterwave_key", r"(FLWSECK(?:_TEST)?-(?:[a-h0-9]{32}-X|[a-h0-9]{12}))", &["flwseck"]).entropy(2.0),
            rule("frameio_token", r"(fio-u-[A-Za-z0-9_\-=]{64})", &["fio-u-"]),
            rule("grafana_token", r"(?:^|[^A-Za-z0-9])(eyJrIjoi[A-Za-z0-9]{70,400}={0,3})", &["eyjrijoi"]).entropy(3.0),
            rule("harness_token", r"((?:pat|sat)\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20})", &["pat.", "sat."]),
            rule("heroku_key", r"(HRKU-AA[0-9A-Za-z_\-]{58})", &["hrku-aa"]).entropy(4.0),
            rule("huggingface_token", r"(?:^|[^A-Za-z0-9])(api_org_[A-Za-z]{34})(?:[^A-Za-z0-9]|$)", &["api_org_"]).entropy(2.0),
            rule("infracost_token", r"(?:^|[^A-Za-z0-9])(ico-[A-Za-z0-9]{32})(?:[^A-Za-z0-9]|$)", &["ico-"]).entropy(3.0),
            rule("intra42_secret", r"(s-s4t2(?:ud|af)-[A-Fa-f0-9]{64})", &["s-s4t2"]),
            rule("maxmind_key", r"(?:^|[^A-Za-z0-9])([A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk)(?:[^A-Za-z0-9]|$)", &["_mmk"]).entropy(4.0),
            rule("teams_webhook", r"(https://[a-z0-9]+\.webhook\.office\.com/webhookb2/[a-z0-9\-]{36}@[a-z0-9\-]{36}/IncomingWebhook/[a-z0-9]{32}/[a-z0-9\-]{36})", &["webhook.office.com"]),
            rule("newrelic_key", r"((?:NRJS-[a-f0-9]{19})|(?:NRII-[A-Za-z0-9\-]{32}))", &["nrjs-", "nrii-"]),
            rule("octopus_key", r"(?:^|[^A-Za-z0-9])(API-[A-Z0-9]{26})(?:[^A-Za-z0-9]|$)", &["api-"]).entropy(3.0).digit(),
            rule("openshift_token", r"(sha256~[A-Za-z0-9_\-]{43})(?:[^A-Za-z0-9_\-]|$)", &["sha256~"]).entropy(3.5),
            rule("prefect_token", r"(?:^|[^A-Za-z0-9])(pnu_[A-Za-z0-9]{36})(?:[^A-Za-z0-9]|$)", &["pnu_"]).entropy(2.0),
            rule("readme_token", r"(?:^|[^A-Za-z0-9])(rdme_[a-z0-9]{70})(?:[^a-z0-9]|$)", &["rdme_"]).entropy(2.0),
            rule("scalingo_token", r"(?:^|[^A-Za-z0-9])(tk-us-[A-Za-z0-9_\-]{48})(?:[^A-Za-z0-9_\-]|$)", &["tk-us-"]).entropy(2.0),
            rule("sendinblue_key", r"(xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16})", &["xkeysib-"]),
            rule("settlemint_token", r"(?:^|[^A-Za-z0-9])(sm_(?:aat|pat|sat)_[A-Za-z0-9]{16})(?:[^A-Za-z0-9]|$)", &["sm_aat_", "sm_pat_", "sm_sat_"]).entropy(3.0),
            rule("sourcegraph_token", r"(?:^|[^A-Za-z0-9])(sgp_(?:(?:[a-fA-F0-9]{16}|local)_)?[a-fA-F0-9]{40})(?:[^A-Za-z0-9]|$)", &["sgp_"]).entropy(3.0),
            rule("yandex_key", r"(?:^|[^A-Za-z0-9])(AQVN[A-Za-z0-9_\-]{35,38})(?:[^A-Za-z0-9_\-]|$)", &["aqvn"]).entropy(3.5),
            rule("sidekiq_secret", r#"(?i)BUNDLE_(?:ENTERPRISE|GEMS)__CONTRIBSYS__COM["']?\s*[:=]\s*["']?([a-f0-9]{8}:[a-f0-9]{8})"#, &["contribsys__com"]),
            rule("telegram_bot_token", r"(?:^|[^0-9])(\d{5,16}:A[0-9A-Za-z_\-]{34})(?:[^0-9A-Za-z_\-]|$)", &[":a"]).entropy(3.0),
            // A session cookie a server sets.
            rule(
                "session_cookie",
                r#"(?i)set-cookie:\s*[^=;\s]*(?:sess|token|auth|sid|jwt|remember)[^=;\s]*=([^;\s"]{16,})"#,
                &["set-cookie"],
            )
            .entropy(3.0),
            // `aws configure set aws_secret_access_key VALUE`.
            rule(
                "aws_secret_key",
                r"aws\s+configure\s+set\s+(?:aws_secret_access_key|aws_session_token|(?:[\w-]+\.)?aws_secret_access_key)\s+([^\s]{16,})",
                &["configure"],
            ),
            rule("azure_storage_key", r"(?i)AccountKey=([A-Za-z0-9+/=]{86,88})", &["accountkey="]),
            rule("jwt", r"(eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,})", &["eyj"]),
            // `Authorization: Bearer ...`, `Basic ...`, `token ...`.
            rule(
                "authorization",
                r#"(?i)(?:proxy-)?authorization["']?\s*[:=]\s*["']?(?:bearer|basic|token|bot|digest|negotiate)\s+([A-Za-z0-9._~+/=\-]{8,})"#,
                &["authorization"],
            ),
            rule("authorization", r#"(?i)\b(?:bearer)\s+([A-Za-z0-9._~+/\-]{20,}=*)"#, &["bearer"]).entropy(3.0),
            // `scheme://user:password@host`.
            // The password may hold a bare `@` (the host follows the last one).
            rule("url_password", r#"(?i)\b[a-z][a-z0-9+.\-]{1,20}://[^\s:/@"'<>]{0,100}:([^\s/"'<>]{3,200})@"#, &["://"]),
            // `DB_PASS=hunter2`, `SMTP_PASSWORD="a, b;(c)"`: a shell or env
            // assignment whose name says password says so of any value,
            // short or punctuated (no entropy floor to reach).
            rule(
                "password_assignment",
                r#"(?:^|[\s;&|(=,])(?:export\s+)?(?:(?:[A-Za-z0-9]+_)*(?i:pass|passwd|password|passphrase|pwd|secret)|(?i:pgpassword|mysql_pwd))=(?:"([^"\n$`]+)"|'([^'\n]+)'|([^\s"'$`;&|()<>][^\s"'`;&|()<>]*))"#,
                &["pass", "pwd", "secret"],
            ),
            // `curl -u user:pass`, `--user user:pass`.
            rule(
                "user_password",
                r#"(?:^|\s)(?:-u|--user|-U|--proxy-user)(?:\s+|=)["']?[^\s:"']+:([^\s"']+)"#,
                &["-u", "--user", "--proxy-user"],
            ),
            // `mysql -pPASS`, any `--password=PASS`.
            rule(
                "password_option",
                r#"(?:^|\s)(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n|;&]*?\s-p(?:'([^'\n]+)'|"([^"\n]+)"|([^\s"';&|]+))"#,
                &["mysql", "mariadb"],
            ),
            rule(
                "password_option",
                r#"(?:^|[\s;&|(])(?:redis-cli\b[^\n|;&]*?\s-a|sshpass\s+-p|(?:docker|podman|nerdctl|buildah|skopeo|oras|helm\s+registry)\s+login\b[^\n|;&]*?\s-p)\s*(?:"([^"\n]+)"|'([^'\n]+)'|([^\s"';&|]+))"#,
                &["redis-cli", "sshpass", "login"],
            ),
            rule(
                "password_option",
                r#"--(?:(?:http|ftp|proxy|db|admin|api|bind|keystore|store)-)?(?:password|passphrase|passwd)[= ](?:"([^"\n]+)"|'([^'\n]+)'|([^\s"'$-][^\s"']*))"#,
                &["password", "passphrase", "passwd"],
            ),
            // Docker's `config.json`: `"auth": "base64(user:password)"`.
            rule("docker_auth", r#""auth"\s*:\s*"([A-Za-z0-9+/]{12,}={0,2})""#, &["\"auth\""]),
            // `.netrc` and `.pgpass` lines.
            rule("netrc_password", r"(?:^|\s)machine\s+\S+\s+(?:login\s+\S+\s+)?password\s+(\S+)", &["machine"]),
            rule(
                "pgpass_password",
                // The host is `*` or a name (a letter or a dot in it): a
                // MAC address or a time is not a `.pgpass` line.
                r"(?m)^(?:\*|[A-Za-z0-9\-]*[A-Za-z.][A-Za-z0-9.\-]*):(?:\d{2,5}|\*):[A-Za-z0-9_\-*]+:[A-Za-z0-9_.@\-*]+:(\S+)$",
                &[":"],
            ),
            // `password = "..."`, `"password": "..."` in code and config:
            // a quoted value of a name that says password is one, however
            // short or plain; so is a YAML value (`POSTGRES_PASSWORD: x`).
            rule(
                "password_assignment",
                r#"(?i)[a-z0-9_.\-]*(?:passw(?:or)?d|passphrase|pwd)["']?\s*(?::=|=>|=|:)\s*(?:"([^"\n]{1,200})"|'([^'\n]{1,200})')"#,
                &["pass", "pwd"],
            ),
            rule(
                "password_assignment",
                r#"(?m)(?:^|\\n)[ \t]*-?[ \t]*["']?[A-Za-z0-9_.\-]*(?i:passw(?:or)?d|passphrase|pwd)["']?[ \t]*:[ \t]+([^\s#"'$&*{\[|>!%\\][^\s#\\]*)[ \t]*(?:$|\\n)"#,
                &["pass", "pwd"],
            ),
            // An INI or properties line (`password = Hunter2!` under a
            // `[client]` section, `db.password=x`): the rest of the line,
            // unless it is code (a call, an attribute, an index).
            rule(
                "password_assignment",
                r#"(?m)^[ \t]*[A-Za-z0-9_.\-]*(?i:passw(?:or)?d|passphrase|pwd)[ \t]*=[ \t]*([^\s#;"'$`(\[{][^\n#;"'`()\[\]{}]*?)[ \t]*\r?$"#,
                &["pass", "pwd"],
            )
            .not_code(),
            // NuGet.Config: `<add key="ClearTextPassword" value="..." />`.
            rule(
                "password_assignment",
                r#"(?i)<add\s+key=["'](?:ClearText)?Password["']\s+value=["']([^"'\n]{1,200})["']"#,
                &["<add key="],
            ),
            // `api_key: Zk3mZ8pL`: a key too short for the generic rule's
            // entropy floor, but with a digit and few repeats.
            rule(
                "secret_assignment",
                r#"(?i)(?:api[_.\-]?key|apikey|secret[_.\-]?key|access[_.\-]?key|client[_.\-]?secret|auth[_.\-]?token|access[_.\-]?token|api[_.\-]?token)["']?\s*(?::=|=>|=|:)\s*["'`]?([A-Za-z0-9_\-+/=.]{8,11})(?:["'`\s,;]|$)"#,
                &["key", "secret", "token"],
            )
            .entropy(2.7)
            .digit(),
            // A key in hex of a key's usual length (32, 40, 64 digits:
            // Datadog's, Algolia's, many others'): hex has at most 4 bits
            // a character, so the generic floor below misses some.
            rule(
                "secret_assignment",
                r#"(?i)(?:passw(?:or)?d|secret|token|api[_.\-]?key|access[_.\-]?key|private[_.\-]?key|auth[_.\-]?key|(?:encryption|signing|master|admin|service|write|license)[_.\-]?key)["']?\s*(?::=|=>|=|:)\s*["'`]?([a-f0-9]{32}|[a-f0-9]{40}|[a-f0-9]{64})(?:[^a-z0-9]|$)"#,
                &["key", "secret", "token", "pass"],
            )
            .entropy(3.0)
            .digit(),
            // `password = ...`, `"api_key": "..."`, `TOKEN=...`, with a
            // value that looks random.
            Rule {
                id: "secret_assignment",
                // A name that says "secret", then the value.
                pattern: concat!(
                    r"(?i)((?:[a-z0-9_.\-]*?)(?:passw(?:or)?d|pwd|secret|token|api[_.\-]?key|access[_.\-]?key|private[_.\-]?key|client[_.\-]?secret|auth[_.\-]?key|(?:encryption|signing|master|enc|admin|service|write|license)[_.\-]?key|credentials?|creds)[a-z0-9_.\-]*)",
                    r#"["']?\s*(?::=|=>|=|:)\s*["'`]?([^\s"'`,;{}()<>\[\]]{12,})"#
                ),
                keywords: &[
                    "pass", "pwd", "secret", "token", "key", "credential", "creds",
                ],
                entropy: 3.5,
                fold: false,
                digit: false,
                not_code: true,
                named: false,
                compiled: OnceLock::new(),
            },
            // Last, so a name that says key or secret is found as that:
            // a vendor's name given a random value (`DATADOG=...`,
            // `twitter_consumer: ...`): gitleaks' rules for services
            // whose keys have no prefix of their own. The vendor's word
            // is a part of the name of its own (`LOBBY` is not Lob's), the
            // value does not start as a path; a name that says the value is an
            // address, an id or a version (`named`) holds no secret.
            rule(
                "vendor_credential",
                concat!(
                    r#"(?i)(?:^|[^A-Za-z0-9_.\-])((?:[a-z0-9]+[_.\-])*(?:adafruit|adobe|airtable|algolia|alibaba|asana|beamer|bitbucket|bittrex|meraki|cloudflare|codecov|cohere|coinbase|confluent|contentful|datadog|discord|droneci|dropbox|etsy|facebook|fastly|finicity|finnhub|flickr|freshbooks|gitter|gocardless|heroku|hubspot|intercom|jfrog|artifactory|bintray|kraken|kucoin|launchdarkly|linear|linkedin|lob|mailchimp|mailgun|mapbox|mattermost|messagebird|netlify|new[_.\-]?relic|nytimes|okta|plaid|private[_.\-]?ai|rapidapi|sendbird|sentry|snyk|sonar|squarespace|sumo(?:logic)?|telegram|travis|twitch|twitter|yandex|zendesk)"#,
                    r#"(?:[_.\-][a-z0-9_.\-]{0,30})?)["']?\s*(?::=|=>|=|:)\s*["'`]?([A-Za-z0-9_=\-+|~%][A-Za-z0-9_=\-./+|~%]{14,149})(?:["'`\s,;]|$)"#
                ),
                &[
                    "adafruit", "adobe", "airtable", "algolia", "alibaba", "asana", "beamer", "bitbucket", "bittrex", "meraki",
                    "cloudflare", "codecov", "cohere", "coinbase", "confluent", "contentful", "datadog", "discord", "droneci",
                    "dropbox", "etsy", "facebook", "fastly", "finicity", "finnhub", "flickr", "freshbooks", "gitter",
                    "gocardless", "heroku", "hubspot", "intercom", "jfrog", "artifactory", "bintray", "kraken", "kucoin",
                    "launchdarkly", "linear", "linkedin", "lob", "mailchimp", "mailgun", "mapbox", "mattermost", "messagebird", "netlify",
                    "relic", "nytimes", "okta", "plaid", "private", "rapidapi", "sendbird", "sentry", "snyk", "sonar",
                    "squarespace", "sumo", "telegram", "travis", "twitch", "twitter", "yandex", "zendesk",
                ],
            )
            .entropy(3.0)
            .digit()
            .not_code()
            .named(),
        ]
    })
}

/// Shannon entropy of `s`, in bits per character.
pub fn entropy(s: &str) -> f64 {
    let mut counts = std::collections::HashMap::new();
    for c in s.chars() {
        *counts.entry(c).or_insert(0usize) += 1;
    }
    let n = s.chars().count() as f64;
    counts
        .values()
        .map(|&c| {
            let p = c as f64 / n;
            -p * p.log2()
        })
        .sum()
}

/// Values that name a secret rather than hold one: `$VAR`, `${VAR}`,
/// `%VAR%`, `{{ var }}`, `<placeholder>`, `your-key-here`, `changeme`,
/// `***`, a word of YAML (`true`, `null`), a run of one character.
fn placeholder(v: &str) -> bool {
    let first = v.chars().next().unwrap_or(' ');
    let lower = v.to_ascii_lowercase();
    v.starts_with('$')
        || v.starts_with("{{")
        || (v.starts_with('%') && v.ends_with('%'))
        || (v.starts_with('<') && v.ends_with('>'))
        || v.contains("REDACTED")
        || lower.starts_with("your")
        || matches!(
            lower.as_str(),
            "changeme" | "change_me" | "change-me" | "password" | "secret" | "true" | "false" | "null" | "none" | "~"
        )
        || v.chars().all(|c| c == first)
}

/// A value that is a name in code rather than a literal: a dotted name
/// (`config.db.password`), a constant (`DB_PASSWORD`, `None`), or one
/// word of letters that an assignment in Python or Ruby would read as a
/// variable (`password = pw`).
fn code_like(v: &str) -> bool {
    let ident = |p: &str| {
        p.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let v = v.trim();
    v.split('.').all(ident) && (v.contains('.') || v.chars().all(|c| c.is_ascii_alphabetic() || c == '_'))
}

/// A name that says its value is not a credential: an address, an id, a
/// version, a place (`SENTRY_RELEASE`, `DISCORD_CLIENT_ID`,
/// `TWITTER_URL`). Its parts are compared, so `API_KEY_ID` is an id and
/// `IDENTITY_TOKEN` is not.
fn names_no_secret(name: &str) -> bool {
    const NOT_SECRETS: &[&str] = &[
        "url",
        "uri",
        "host",
        "hostname",
        "domain",
        "site",
        "region",
        "endpoint",
        "version",
        "release",
        "sha",
        "commit",
        "path",
        "dir",
        "file",
        "user",
        "username",
        "email",
        "channel",
        "id",
        "env",
        "environment",
        "name",
        "org",
        "project",
        "team",
        "handle",
        "dsn",
    ];
    name.split(['_', '.', '-'])
        .any(|part| NOT_SECRETS.iter().any(|w| part.eq_ignore_ascii_case(w)))
}

/// A value made of words, numbers and short tags between separators
/// (`checkout-service-v2`, `us-east-1.amazonaws.com`, `agent-7.52.1`): a
/// name or a place, however varied its letters. A key has a long part
/// mixing letters and digits (`live_e9db07...`, a UUID's `ee758af8`).
fn reads_as_words(v: &str) -> bool {
    let parts: Vec<&str> = v.split(['-', '.', '_', '/']).filter(|p| !p.is_empty()).collect();
    parts.len() >= 2
        && parts.iter().all(|p| {
            p.len() <= 3
                || (p.len() <= 12 && p.chars().all(|c| c.is_ascii_alphabetic()))
                || (p.len() <= 8 && p.chars().all(|c| c.is_ascii_digit()))
        })
}

/// A secret found in a text: its byte range and the rule that found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Start byte.
    pub start: usize,
    /// End byte.
    pub end: usize,
    /// The rule id.
    pub id: &'static str,
}

fn keyword_index() -> &'static (AhoCorasick, Vec<usize>) {
    static INDEX: OnceLock<(AhoCorasick, Vec<usize>)> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut words = Vec::new();
        let mut owner = Vec::new();
        for (i, r) in rules().iter().enumerate() {
            for k in r.keywords {
                words.push(*k);
                owner.push(i);
            }
        }
        let ac = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(&words)
            .expect("keywords build");
        (ac, owner)
    })
}

/// Every secret in `text`, in order, without overlaps.
/// Byte ranges already found, none overlapping another: whether a new one
/// overlaps any is one lookup (a linear scan per finding made a text with
/// many findings quadratic: 1 MiB of `PASS=a1` lines took 4 s).
#[derive(Default)]
pub(crate) struct Taken(std::collections::BTreeMap<usize, usize>);

impl Taken {
    /// Whether `start..end` overlaps a range taken.
    pub(crate) fn overlaps(&self, start: usize, end: usize) -> bool {
        // Disjoint ranges: only the last one starting before `end` can
        // reach past `start`.
        self.0.range(..end).next_back().is_some_and(|(_, &e)| e > start)
    }

    /// Takes `start..end` unless it overlaps a range taken; whether it did.
    pub(crate) fn take(&mut self, start: usize, end: usize) -> bool {
        if self.overlaps(start, end) {
            return false;
        }
        self.0.insert(start, end);
        true
    }
}

pub fn scan(text: &str) -> Vec<Found> {
    let (ac, owner) = keyword_index();
    let mut wanted = vec![false; rules().len()];
    for m in ac.find_overlapping_iter(text) {
        wanted[owner[m.pattern().as_usize()]] = true;
    }
    let mut found: Vec<Found> = Vec::new();
    let mut taken = Taken::default();
    let upper = rules()
        .iter()
        .zip(&wanted)
        .any(|(r, w)| *w && r.fold)
        .then(|| text.to_ascii_uppercase());
    for (rule, _) in rules().iter().zip(&wanted).filter(|(_, w)| **w) {
        let haystacks = std::iter::once(text).chain(upper.as_deref().filter(|_| rule.fold));
        for (pass, hay) in haystacks.enumerate() {
            for caps in rule.regex().captures_iter(hay) {
                // The secret is the last group that took part (a rule may
                // name the key in a group first, or offer quoted and bare
                // forms), else the whole match.
                let m = caps.iter().skip(1).flatten().last().or_else(|| caps.get(0));
                let Some(m) = m else { continue };
                let value = &text[m.start()..m.end()];
                // Upper-cased, a plain word can look like a key id; a
                // real one has digits.
                if pass == 1 && !value.chars().any(|c| c.is_ascii_digit()) {
                    continue;
                }
                if placeholder(value)
                    || (rule.named
                        && (caps.get(1).is_some_and(|n| names_no_secret(n.as_str())) || reads_as_words(value)))
                    || (rule.entropy > 0.0 && entropy(value) < rule.entropy)
                    || (rule.digit && !value.chars().any(|c| c.is_ascii_digit()))
                    || (rule.not_code && code_like(value))
                {
                    continue;
                }
                if !taken.take(m.start(), m.end()) {
                    continue;
                }
                found.push(Found {
                    start: m.start(),
                    end: m.end(),
                    id: rule.id,
                });
            }
        }
    }
    found.sort_by_key(|f| f.start);
    found
}

#[cfg(test)]
mod taken_tests {
    use super::Taken;
    use proptest::prelude::*;

    proptest! {
        /// One lookup says what a scan of every range taken would.
        #[test]
        fn taken_agrees_with_a_scan_of_every_range(ranges in prop::collection::vec((0usize..200, 1usize..20), 0..60)) {
            let mut taken = Taken::default();
            let mut kept: Vec<(usize, usize)> = Vec::new();
            for (start, len) in ranges {
                let end = start + len;
                let naive = kept.iter().any(|&(s, e)| s < end && start < e);
                prop_assert_eq!(taken.overlaps(start, end), naive);
                prop_assert_eq!(taken.take(start, end), !naive);
                if !naive {
                    kept.push((start, end));
                }
            }
        }
    }
}
