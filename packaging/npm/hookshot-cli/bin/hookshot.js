#!/usr/bin/env node
// The `hookshot` command of the npm package `hookshot-cli`: runs the native binary of the
// platform package npm installed beside this one (an optional dependency,
// as Claude Code and Codex ship theirs). It passes arguments, standard
// streams, the exit code and a terminating signal through unchanged.
// `hookshot install` registers the native binary's own path, so agents
// never start node for a hook event.
"use strict";

const { spawnSync } = require("node:child_process");
const path = require("node:path");
const fs = require("node:fs");

function isMusl() {
  if (process.platform !== "linux") return false;
  try {
    const report = process.report && process.report.getReport();
    if (report && report.header) return !report.header.glibcVersionRuntime;
  } catch (_) {
    // fall through to the file check
  }
  return fs.existsSync("/etc/alpine-release");
}

function candidates() {
  const base = `hookshot-cli-${process.platform}-${process.arch}`;
  // A static musl build runs on every Linux; prefer the libc's own.
  return isMusl() ? [`${base}-musl`, base] : [base, `${base}-musl`];
}

function findBinary() {
  if (process.env.HOOKSHOT_BINARY) return process.env.HOOKSHOT_BINARY;
  for (const pkg of candidates()) {
    try {
      const manifest = require.resolve(`${pkg}/package.json`);
      const bin = path.join(path.dirname(manifest), "bin", "hookshot");
      if (fs.existsSync(bin)) return bin;
    } catch (_) {
      // not installed: try the next
    }
  }
  return null;
}

const binary = findBinary();
if (!binary) {
  const wanted = candidates().join(" or ");
  process.stderr.write(
    `hookshot: no native binary for ${process.platform}-${process.arch} (looked for the npm package ${wanted}).\n` +
      "hookshot ships binaries for linux-x64, linux-arm64 (glibc and musl), darwin-arm64 and darwin-x64; elsewhere, build it from a clone of its repository: `cargo install --path . --locked`,\n" +
      "or, if npm skipped optional dependencies (--omit=optional), reinstall without that option.\n",
  );
  process.exit(1);
}

const result = spawnSync(binary, process.argv.slice(2), { stdio: "inherit" });
if (result.error) {
  process.stderr.write(`hookshot: cannot run ${binary}: ${result.error.message}\n`);
  process.exit(1);
}
if (result.signal) {
  // Die of the same signal, so the caller sees what the binary saw.
  process.removeAllListeners(result.signal);
  process.kill(process.pid, result.signal);
}
process.exit(result.status === null ? 1 : result.status);
