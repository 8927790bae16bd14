"""Search ties and wordless queries (issue 65): a passage holding a word no other passage holds
is never ranked below one found by vector alone that holds none of the query's words (they tie
when the holder is outside the vector candidates: the tie goes to the holder); equal scores are
the only order that moves. A query of only punctuation or operators is the empty-search error."""
import pytest
from helpers.cli_run import cli, one_error_line  # noqa: F401 (a fixture)
from helpers.hash_embedder import HashEmbedder, write

from assistant.retrieval.retriever import fuse
from assistant.services.search import check_query, search
from models.config import Settings
from models.errors import BadInputError

WORDS = "heron otter reed river clinic budget spring project leave policy office garden".split()


def test_a_tie_goes_to_the_full_text_ranking_and_other_orders_stay():
    vector, text = ["v1", "v2", "v3"], ["h"]
    assert fuse([vector, text], 2) == [("v1", 1 / 61), ("h", 1 / 61)]  # as before: ties in insertion order
    assert [pid for pid, _ in fuse([vector, text], 2, first_on_ties=text)] == ["h", "v1"]
    both = [["a", "b", "c"], ["c", "a", "d"]]  # no ties: the same order with or without the tie-break
    assert fuse(both, 4) == fuse(both, 4, first_on_ties=both[1])


def test_the_one_passage_holding_a_word_is_found_first(tmp_path):
    from index_builder.folder import index_folder
    from index_builder.store import IndexStore

    folder = tmp_path / "notes"
    for i in range(80):  # more passages than the vector search's 30 candidates
        write(folder, f"note{i:02d}.md", " ".join(WORDS[(i + j) % len(WORDS)] for j in range(40)))
    write(folder, "zz-holder.md", "The quokkafrost sensor lives on the roof. " + " ".join(WORDS))
    settings = Settings(data_dir=tmp_path / "data")
    store = IndexStore.open_or_create(settings.index_path, HashEmbedder.model_id, HashEmbedder.dim)
    index_folder(store, HashEmbedder(), folder)
    from assistant.retrieval.retriever import HybridRetriever

    retriever = HybridRetriever(IndexStore.open(settings.index_path), HashEmbedder())
    by_vector = retriever.by_vector(HashEmbedder().encode(["quokkafrost"])[0], 30, ["path"])
    assert "zz-holder.md" not in [r["path"] for r in by_vector]  # the case of the trial: a tie at 1/61
    hits = search(settings, "quokkafrost", k=1, embedder_factory=lambda s: HashEmbedder())
    assert hits[0].file == "zz-holder.md"


@pytest.mark.parametrize("query", ["*", '"', "  ()  ", "+-!", "&& ||"])
def test_a_query_without_a_word_is_empty(query):
    with pytest.raises(BadInputError, match="the search is empty"):
        check_query(query, 5)


def test_cli_search_of_punctuation_is_the_empty_search_error(cli):  # noqa: F811
    for query in ("*", '"'):
        assert "the search is empty" in one_error_line(cli("search", query))
