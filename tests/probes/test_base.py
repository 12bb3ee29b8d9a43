"""Shared probe helpers."""


def test_names_memo_answers_like_the_regex():
    import re

    from dids.probes.base import Names

    pat = r"^(boto3)\.(client|resource)$|kube"
    names = Names(pat, re.I)
    regex = re.compile(pat, re.I)
    for s in ["boto3.client", "BOTO3.Resource", "x.boto3.client", "load_kube_config", "", "boto3.clients"]:
        for _ in range(2):  # the second answer comes from the memo
            assert names.search(s) is (regex.search(s) is not None), s
            assert names.match(s) is (regex.match(s) is not None), s
    assert names.pattern == pat


def test_names_case_folding_keeps_meaning():
    import re

    from dids.probes.base import Names

    for pat in [r"chat_postMessage|SMTP", r"\bSecret\S*", r"(?P<Word>Token)_?\d+"]:
        names, regex = Names(pat, re.I), re.compile(pat, re.I)
        for s in ["slack.chat_postmessage", "CHAT_POSTMESSAGE", "smtplib.SMTP", "x.SecretX!",
                  "SECRET", "my token_12", "TOKEN9", "nothing"]:
            assert names.search(s) is (regex.search(s) is not None), (pat, s)
    assert Names(r"\bSecret\S*", re.I)._fold is False  # \S must not become \s
