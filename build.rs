//! Records the git revision the binary is built from, when there is one.

fn main() {
    println!("cargo:rerun-if-changed=.git/HEAD");
    if let Ok(out) = std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .output()
    {
        if out.status.success() {
            let rev = String::from_utf8_lossy(&out.stdout).trim().to_string();
            println!("cargo:rustc-env=PGCHECK_GIT_REVISION={rev}");
        }
    }
}
