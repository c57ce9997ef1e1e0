//! What people do on the fake PR, as deliveries: comment (and run the jobs it leads to), push,
//! review; and the heads the harness records as pushed.

use super::{fake_github, pr_comment, webhook_fixture, Harness};

impl Harness {
    /// `user` comments `body` on PR `pr`; every job it leads to runs (Terraform included).
    /// Returns the comments tfgate posted meanwhile.
    pub async fn comment(&self, pr: i64, body: &str, user: &str) -> Vec<String> {
        self.comment_except(pr, body, user, &[]).await
    }

    /// Like [`Harness::comment`], but jobs of the `skip` kinds are dropped, not run (policy
    /// stories stop where Terraform would start: `&["run"]`).
    pub async fn comment_except(
        &self,
        pr: i64,
        body: &str,
        user: &str,
        skip: &[&str],
    ) -> Vec<String> {
        let before = self.github.comments().len();
        let mut delivery = pr_comment(body, user);
        delivery["issue"]["number"] = pr.into();
        self.deliver("issue_comment", &delivery).await;
        self.run_jobs_except(skip).await;
        self.github.comments()[before..]
            .iter()
            .map(|c| c.body.clone())
            .collect()
    }

    /// A push to PR `pr` by the webhook fixture's sender (`Codertocat`): the fake PR's head
    /// becomes `head_sha`, its changed files `files`, and a signed `pull_request.synchronize`
    /// is delivered (its jobs are left queued).
    pub async fn push(&self, pr: i64, head_sha: &str, files: &[&str]) {
        self.push_by(pr, head_sha, files, "Codertocat").await;
    }

    /// [`Harness::push`] by `sender` to the fake PR's author's PR: the delivery names the
    /// sender as the pusher and the previous head as `before`.
    pub async fn push_by(&self, pr: i64, head_sha: &str, files: &[&str], sender: &str) {
        self.record_fake_head(pr).await;
        let (before, author) = self.github.with(|g| {
            let before = std::mem::replace(&mut g.pr.head_sha, head_sha.to_string());
            g.files = files.iter().map(|f| f.to_string()).collect();
            (before, g.pr.author.clone())
        });
        self.pushes
            .lock()
            .unwrap()
            .heads
            .insert(pr, head_sha.to_string());
        let mut delivery = webhook_fixture("pull_request.synchronize.json");
        delivery["number"] = pr.into();
        delivery["pull_request"]["number"] = pr.into();
        delivery["pull_request"]["head"]["sha"] = head_sha.into();
        delivery["before"] = before.into();
        delivery["after"] = head_sha.into();
        delivery["pull_request"]["user"]["login"] = author.into();
        delivery["sender"]["login"] = sender.into();
        self.deliver("pull_request", &delivery).await;
    }

    /// The PR was opened before the App was installed, and heads the fake serves are not
    /// recorded as pushed: tfgate knows only the `pull_request` deliveries a test makes.
    pub fn pushes_unseen(&self) {
        self.pushes.lock().unwrap().enabled = false;
    }

    /// Record the fake PR's head as pushed by its author if the harness has not yet (see
    /// [`SeenPushes`](super::harness::SeenPushes)).
    pub(super) async fn record_fake_head(&self, pr: i64) {
        let (head, author) = self
            .github
            .with(|g| (g.pr.head_sha.clone(), g.pr.author.clone()));
        let previous = {
            let mut pushes = self.pushes.lock().unwrap();
            if !pushes.enabled {
                return;
            }
            match pushes.heads.insert(pr, head.clone()) {
                Some(previous) if previous == head => return,
                previous => previous,
            }
        };
        let action = if previous.is_some() {
            "synchronize"
        } else {
            "opened"
        };
        let record =
            tfgate::policy::PushRecord::from_event(action, &head, previous.as_deref(), &author)
                .unwrap();
        tfgate::db::pr_pushes::record(
            &self.state.db,
            "Codertocat/Hello-World",
            pr,
            action,
            &record,
        )
        .await
        .unwrap();
    }

    /// `user` submits a review in `state` (`APPROVED`, `CHANGES_REQUESTED`, …) on the head.
    pub async fn review(&self, pr: i64, user: &str, state: &str) {
        let head = self.github.with(|g| {
            g.reviews.push(fake_github::FakeReview {
                user: user.into(),
                state: state.into(),
                commit_id: g.pr.head_sha.clone(),
                is_bot: false,
            });
            g.pr.head_sha.clone()
        });
        let mut delivery = webhook_fixture("pull_request_review.submitted.json");
        delivery["pull_request"]["number"] = pr.into();
        delivery["review"]["user"]["login"] = user.into();
        delivery["review"]["state"] = state.to_lowercase().into();
        delivery["review"]["commit_id"] = head.into();
        self.deliver("pull_request_review", &delivery).await;
    }
}
