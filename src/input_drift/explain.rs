//! Does the PR diff touch a place that explains a change?

use super::closure::Location;
use super::paths::{is_directly_in, is_under, normalize_dir};

/// The first PR file (in `locations` order) that one of the locations covers.
pub(super) fn first_explaining_file(locations: &[Location], pr_files: &[String]) -> Option<String> {
    let files: Vec<String> = pr_files.iter().map(|f| normalize_dir(f)).collect();
    locations
        .iter()
        .find_map(|location| files.iter().find(|file| covers(location, file)).cloned())
}

fn covers(location: &Location, file: &str) -> bool {
    match location {
        Location::File(path) => normalize_dir(path) == file,
        Location::TfIn(dir) => file.ends_with(".tf") && is_directly_in(file, dir),
        Location::Under(dir) => is_under(file, dir),
        Location::TfvarsIn(dir) => {
            (file.ends_with(".tfvars") || file.ends_with(".tfvars.json"))
                && is_directly_in(file, dir)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_cover_files() {
        let files: Vec<String> = [
            "./infra/eks/main.tf",
            "infra/eks/prod.auto.tfvars",
            "modules/vpc/sub/x.tf",
            "README.md",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let cases: Vec<(Location, Option<&str>)> = vec![
            (
                Location::File("infra/eks/main.tf".into()),
                Some("infra/eks/main.tf"),
            ),
            (Location::File("infra/eks/other.tf".into()), None),
            (
                Location::TfIn("infra/eks".into()),
                Some("infra/eks/main.tf"),
            ),
            (Location::TfIn("infra".into()), None),
            (Location::TfIn("".into()), None),
            (
                Location::Under("modules/vpc".into()),
                Some("modules/vpc/sub/x.tf"),
            ),
            (Location::Under("modules/vp".into()), None),
            (
                Location::TfvarsIn("infra/eks".into()),
                Some("infra/eks/prod.auto.tfvars"),
            ),
            (Location::TfvarsIn("".into()), None),
        ];
        for (location, want) in cases {
            let got = first_explaining_file(std::slice::from_ref(&location), &files);
            assert_eq!(got.as_deref(), want, "{location:?}");
        }
        // Order of locations decides which file is reported.
        let got = first_explaining_file(
            &[
                Location::TfvarsIn("infra/eks".into()),
                Location::TfIn("infra/eks".into()),
            ],
            &files,
        );
        assert_eq!(got.as_deref(), Some("infra/eks/prod.auto.tfvars"));
    }
}
