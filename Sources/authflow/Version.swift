/// The release of this `authflow` build: printed by `authflow --version`, named by `scripts/release.sh`'s
/// archive and by CHANGELOG.md. The one place the version is written.
enum Version {
    static let current = "0.1.0"
}
