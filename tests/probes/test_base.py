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
