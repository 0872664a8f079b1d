"""A label is only evidence for a category that the post's own ruleset rules.

Only M08 rules real life and only M72 rules meta (``lexicons/articles``): a writer labels a
real-life remark in an M72 game clean, the same remark in an M08 game ``real_life``. The shared
classifier leaves such posts out of the unruled category's fit, threshold, calibration and dev
scores (``moderation.training.known_matrix``), instead of learning that real life is clean.
"""

from __future__ import annotations

import numpy as np

from moderation.training import (
    Post,
    TrainingOptions,
    choose_thresholds,
    evaluate,
    evaluate_screener,
    fit_classifier,
    known_matrix,
)

CATEGORIES = ("insult", "real_life", "meta")


def test_known_matrix_marks_what_each_ruleset_does_not_rule() -> None:
    posts = [
        Post("a", "x", (), ruleset="m72"),
        Post("b", "x", (), ruleset="m08"),
        Post("c", "x", (), ruleset="wa004"),
        Post("d", "x", ()),
    ]
    assert known_matrix(posts, CATEGORIES).tolist() == [
        [True, False, True],
        [True, True, False],
        [True, False, False],
        [True, True, True],
    ]


def test_a_threshold_ignores_clean_posts_whose_ruleset_does_not_rule_it() -> None:
    scores = np.array([[0.9], [0.8], [0.7], [0.2], [0.1]])
    gold = np.array([[1], [1], [0], [0], [0]])
    clean = np.array([False, False, True, True, True])
    # the clean 0.7 is an M72 post: for real_life it says nothing
    known = np.array([[True], [True], [False], [True], [True]])
    assert choose_thresholds(scores, gold, clean, ["real_life"], 0.0) == {"real_life": 0.75}
    assert choose_thresholds(scores, gold, clean, ["real_life"], 0.0, known) == {"real_life": 0.5}


_LIFE = ["今天加班到很晚", "刚下班回家", "明天要去医院复查", "周末要搬家好累", "上班摸鱼看帖"]
_GAME = ["我站边预言家", "今天归票五号", "女巫昨晚开毒了", "警徽流先验三号", "五号悍跳了"]
_RUDE = ["你是傻逼吧", "五号脑残", "你个智障", "猪脑子别说话", "傻逼五号"]


def _posts(life_ruleset: str | None) -> list[Post]:
    posts: list[Post] = []
    for i in range(40):
        k = i % 5
        posts.append(Post(f"l{i}", f"{_LIFE[k]}，第{i}天", ("real_life",), ruleset="m08"))
        # the same kind of remark in another game: clean there, because unruled
        life = f"{_LIFE[(k + 2) % 5]}，第{i}回"
        posts.append(Post(f"m{i}", life, (), ruleset=life_ruleset))
        posts.append(Post(f"g{i}", f"{_GAME[k]}，第{i}轮", ()))
        posts.append(Post(f"r{i}", f"{_RUDE[k]}，第{i}次", ("insult",)))
    return posts


def test_a_remark_clean_only_because_unruled_does_not_teach_real_life_is_clean() -> None:
    options = TrainingOptions(min_positives=10)
    masked = fit_classifier(_posts("m72"), options)
    unmasked = fit_classifier(_posts(None), options)  # the same posts read as clean everywhere
    for text in ("周末搬家", "上班好累"):
        raised = masked.predict([text])[0]["real_life"] - unmasked.predict([text])[0]["real_life"]
        assert raised > 0.2
        assert "real_life" in masked.labels(text)
        assert "real_life" not in unmasked.labels(text)


def test_dev_scores_leave_out_a_category_the_post_is_not_ruled_by() -> None:
    model = fit_classifier(_posts("m72"), TrainingOptions(min_positives=10))
    dev = [Post("x1", "明天要去医院复查，先下了", (), ruleset="m72")]
    evaluation = evaluate(model, dev)
    assert evaluation.scores["real_life"].fp == 0
    assert evaluation.clean_flagged == 0
    assert evaluate(model, [Post("x2", "明天要去医院复查，先下了", ())]).clean_flagged == 1


def test_the_full_screener_scores_a_post_under_the_ruleset_it_names() -> None:
    # the post's labels were given under M72, which has no real-life article: no false positive
    remark = "明天要去医院复查，这两天上班忙死了"
    assert evaluate_screener(None, [Post("y1", remark, (), ruleset="m72")])["clean_flagged"] == 0
    # with no ruleset named it is judged under M08 too, whose 6(6) it breaks
    assert evaluate_screener(None, [Post("y2", remark, ())])["clean_flagged"] == 1
