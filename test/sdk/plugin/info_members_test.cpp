// How the SDK reads a hook's Info (sdk/include/trainer/info_members.hpp): the member scanner
// splits exactly what a whole parse would read, and refuses what it cannot vouch for; the memo
// hands back a tree only for the same text; an Info parses only the members a hook reads, and a
// malformed one fails the hook through the adapter.
#define BOOST_TEST_MODULE sdk_info_members_test
#include <boost/test/unit_test.hpp>

#include <trainer/plugin.hpp>
#include <trainer/testing.hpp>

#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace trainer::sdk;
using detail::MemberMemo;
using detail::MemberScanner;
using detail::MemberSpan;

namespace {

std::vector<MemberSpan> scan(std::string_view text) {
    std::vector<MemberSpan> out;
    BOOST_REQUIRE_MESSAGE(MemberScanner(text).scan(out), "the scanner refused " << text);
    return out;
}

bool refuses(std::string_view text) {
    std::vector<MemberSpan> out;
    return !MemberScanner(text).scan(out);
}

// An Info over `text` as the adapter makes it.
Info lazyInfo(std::string_view text, MemberMemo* memo) { return Info(scan(text), memo); }

// A random JSON value of bounded depth: every kind, strings with escapes, quotes and brackets.
json::value randomValue(std::mt19937& rng, int depth) {
    static const char* strings[] = {"", "plain", "with \"quotes\"", "brackets ]}[{", "back\\slash", "tab\tnl\n",
                                    "unicode é ☃", "comma, colon:"};
    const int kind = static_cast<int>(rng() % (depth > 0 ? 8 : 6));
    switch (kind) {
    case 0: return nullptr;
    case 1: return rng() % 2 == 0;
    case 2: return static_cast<std::int64_t>(rng() % 2000) - 1000;
    case 3: return static_cast<double>(rng() % 1000) / 8.0;
    case 4:
    case 5: return json::string(strings[rng() % std::size(strings)]);
    case 6: {
        json::array a;
        for (unsigned i = rng() % 4; i > 0; --i) a.push_back(randomValue(rng, depth - 1));
        return a;
    }
    default: {
        json::object o;
        for (unsigned i = rng() % 4; i > 0; --i)
            o[std::string("k") + std::to_string(rng() % 10) + strings[rng() % 3]] = randomValue(rng, depth - 1);
        return o;
    }
    }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(scanner)

BOOST_AUTO_TEST_CASE(splits_members_with_their_exact_text) {
    const std::string text =
        R"( {"a":1, "b" : {"x":[1,{"y":"]}"}]} ,"c":"q\"}","d":[],"e":true,"f":null,"g":-1.5e3 } )";
    auto m = scan(text);
    BOOST_REQUIRE_EQUAL(m.size(), 7u);
    BOOST_TEST(m[0].key == "a");
    BOOST_TEST(m[0].text == "1");
    BOOST_TEST(m[1].key == "b");
    BOOST_TEST(m[1].text == R"({"x":[1,{"y":"]}"}]})");
    BOOST_TEST(m[2].text == R"("q\"}")");
    BOOST_TEST(m[3].text == "[]");
    BOOST_TEST(m[4].text == "true");
    BOOST_TEST(m[5].text == "null");
    BOOST_TEST(m[6].key == "g");
    BOOST_TEST(m[6].text == "-1.5e3");
    BOOST_TEST(scan("{}").empty());
    BOOST_TEST(scan(" { } ").empty());
}

BOOST_AUTO_TEST_CASE(an_escaped_backslash_before_a_quote_ends_the_string) {
    auto m = scan(R"({"a":"x\\","b":"\\\"]"})");
    BOOST_REQUIRE_EQUAL(m.size(), 2u);
    BOOST_TEST(m[0].text == R"("x\\")");
    BOOST_TEST(m[1].text == R"("\\\"]")");
}

// Escapes at every offset of strings of every length up to 40 (escaped quotes, escaped
// backslashes before a closing quote, runs of both) end the string where a parse does.
BOOST_AUTO_TEST_CASE(finds_the_closing_quote_at_every_offset) {
    for (std::size_t len = 0; len < 40; ++len)
        for (std::size_t at = 0; at <= len; ++at)
            for (const char* escape : {"\\\"", "\\\\", "\\\\\\\"", "\\u0022"}) {
                std::string body(len, 'x');
                body.insert(at, escape);
                const std::string value = "\"" + body + "\"";
                const std::string text = "{\"a\":" + value + ",\"b\":[\"" + body + "\",{\"c\":\"]\"}]}";
                auto m = scan(text);
                BOOST_REQUIRE_EQUAL(m.size(), 2u);
                BOOST_TEST(m[0].text == value);
                BOOST_TEST(json::parse(m[0].text) == json::parse(text).as_object().at("a"));
                BOOST_TEST(json::parse(m[1].text) == json::parse(text).as_object().at("b"));
            }
}

BOOST_AUTO_TEST_CASE(refuses_what_it_cannot_vouch_for) {
    BOOST_TEST(refuses(""));
    BOOST_TEST(refuses("[1,2]"));
    BOOST_TEST(refuses("\"s\""));
    BOOST_TEST(refuses(R"({"a":1)"));                // no closing brace
    BOOST_TEST(refuses(R"({"a":1} x)"));             // something after it
    BOOST_TEST(refuses(R"({"a":1}{})"));
    BOOST_TEST(refuses(R"({"a":{"b":1})"));          // unbalanced
    BOOST_TEST(refuses(R"({"a":[1}})"));             // mismatched
    BOOST_TEST(refuses(R"({"a":"unterminated})"));
    BOOST_TEST(refuses(R"({"a\"b":1})"));            // a key with an escape
    BOOST_TEST(refuses(R"({"a":1,"a":2})"));         // a key twice
    BOOST_TEST(refuses(R"({"a" 1})"));               // no colon
    BOOST_TEST(refuses(R"({"a":1 "b":2})"));         // no comma
    BOOST_TEST(refuses(R"({"a":})"));                // no value
    BOOST_TEST(refuses(R"({"a":1,})"));              // trailing comma
    BOOST_TEST(refuses(R"({a:1})"));                 // unquoted key
}

// Over random documents: each member's text parses to what a whole parse gives for it, and the
// lazy Info's doc() equals the whole parse.
BOOST_AUTO_TEST_CASE(members_parse_to_what_a_whole_parse_gives) {
    std::mt19937 rng(14);
    for (int i = 0; i < 500; ++i) {
        json::object doc;
        for (unsigned k = rng() % 8; k > 0; --k) doc[std::string("m") + std::to_string(k)] = randomValue(rng, 4);
        const std::string text = json::serialize(doc);
        auto members = scan(text);
        BOOST_REQUIRE_EQUAL(members.size(), doc.size());
        for (auto const& m : members) BOOST_TEST(json::parse(m.text) == doc.at(m.key), text);
        MemberMemo memo;
        BOOST_TEST(lazyInfo(text, &memo).doc() == doc, text);
    }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(memo)

BOOST_AUTO_TEST_CASE(hands_back_the_same_tree_only_for_the_same_text) {
    MemberMemo memo;
    json::error_code ec;
    auto a = memo.parse("trainJob", R"({"n":1})", ec);
    BOOST_REQUIRE(a);
    auto again = memo.parse("trainJob", R"({"n":1})", ec);
    BOOST_TEST(again.get() == a.get());
    auto other = memo.parse("trainJob", R"({"n":2})", ec);
    BOOST_REQUIRE(other);
    BOOST_TEST(other.get() != a.get());
    BOOST_TEST(*other == json::parse(R"({"n":2})"));
    BOOST_TEST(*a == json::parse(R"({"n":1})"));  // a holder keeps its tree after it is replaced
    // Keys are separate: the same text under another key is its own entry.
    auto underRuntime = memo.parse("runtime", R"({"n":2})", ec);
    BOOST_TEST(underRuntime.get() != other.get());
    BOOST_TEST(memo.parse("trainJob", R"({"n":2})", ec).get() == other.get());
}

// A split remembered for a text is the scanner's split of it, handed back pointing into the
// text it is asked about (another buffer with the same bytes), and only for the same text.
BOOST_AUTO_TEST_CASE(hands_back_the_same_split_only_for_the_same_text) {
    MemberMemo memo;
    auto views = [](const std::vector<MemberSpan>& m) {
        std::vector<std::pair<std::string, std::string>> out;
        for (auto const& x : m) out.emplace_back(x.key, x.text);
        return out;
    };
    const std::string first = R"({"metadata":{"name":"a"},"spec":{"x":[1,"]"]}})";
    std::vector<MemberSpan> a, b, c;
    BOOST_REQUIRE(memo.split("trainJob", first, a));
    BOOST_TEST((views(a) == views(scan(first))));
    const std::string same = first;  // the same bytes elsewhere
    BOOST_REQUIRE(memo.split("trainJob", same, b));
    BOOST_TEST((views(b) == views(a)));
    BOOST_TEST(b[1].text.data() == same.data() + same.find(R"({"x")"));
    const std::string other = R"({"spec":{},"metadata":{"name":"b"}})";
    BOOST_REQUIRE(memo.split("trainJob", other, c));
    BOOST_TEST((views(c) == views(scan(other))));
    // What the scanner refuses stays refused, remembered or not.
    std::vector<MemberSpan> none;
    BOOST_TEST(!memo.split("trainJob", R"({"k":1,"k":2})", none));
    BOOST_TEST(!memo.split("trainJob", R"({"k":1,"k":2})", none));
    BOOST_TEST(memo.split("trainJob", first, a));
}

BOOST_AUTO_TEST_CASE(reports_text_that_is_not_json) {
    MemberMemo memo;
    json::error_code ec;
    BOOST_TEST(!memo.parse("trainJob", R"({"n":})", ec));
    BOOST_TEST(ec.failed());
}

BOOST_AUTO_TEST_CASE(is_bounded) {
    MemberMemo memo;
    json::error_code ec;
    const std::string big = "\"" + std::string(MemberMemo::kMaxText, 'x') + "\"";
    auto first = memo.parse("big", big, ec);
    BOOST_TEST(memo.parse("big", big, ec).get() != first.get());  // too long to remember
    for (std::size_t i = 0; i < MemberMemo::kKeys; ++i) (void)memo.parse("k" + std::to_string(i), "1", ec);
    auto past = memo.parse("one-too-many", "1", ec);
    BOOST_REQUIRE(past);
    BOOST_TEST(memo.parse("one-too-many", "1", ec).get() != past.get());
    BOOST_TEST(memo.parse("k0", "1", ec).get() == memo.parse("k0", "1", ec).get());
}

// Threads that share an instance's memo each get the tree of their own text.
BOOST_AUTO_TEST_CASE(threads_sharing_a_memo_get_their_own_text) {
    MemberMemo memo;
    std::vector<std::thread> threads;
    std::vector<int> wrong(4, 0);
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (int i = 0; i < 2000; ++i) {
                const int n = (t + i) % 3;
                json::error_code ec;
                auto v = memo.parse("trainJob", "{\"n\":" + std::to_string(n) + "}", ec);
                if (!v || v->as_object().at("n").as_int64() != n) ++wrong[t];
            }
        });
    for (auto& t : threads) t.join();
    for (int w : wrong) BOOST_TEST(w == 0);
}

BOOST_AUTO_TEST_SUITE_END()

namespace {

// The index a host offers for `text` (trn_host_api.input_members): the scanner's split.
std::vector<trn_member> indexOf(std::string_view text) {
    std::vector<trn_member> out;
    for (auto const& m : scan(text)) out.push_back({toAbi(m.key), toAbi(m.text)});
    return out;
}

bool accepts(std::string_view text, const std::vector<trn_member>& index) {
    std::vector<MemberSpan> out;
    return detail::acceptHostIndex(text, index.data(), index.size(), out);
}

trn_str at(std::string_view text, std::size_t pos, std::size_t n) { return trn_str{text.data() + pos, n}; }

}  // namespace

BOOST_AUTO_TEST_SUITE(host_index)

// The host's index of a document it wrote gives the members the scanner finds, exactly.
BOOST_AUTO_TEST_CASE(takes_the_index_of_a_document_as_the_scanner_splits_it) {
    std::mt19937 rng(21);
    for (int doc = 0; doc < 300; ++doc) {
        json::object o;
        for (unsigned i = rng() % 6; i > 0; --i) o["m" + std::to_string(rng() % 9)] = randomValue(rng, 3);
        const std::string text = json::serialize(o);
        if (o.empty()) continue;  // no members: nothing to index
        const auto index = indexOf(text);
        std::vector<MemberSpan> out;
        BOOST_REQUIRE_MESSAGE(detail::acceptHostIndex(text, index.data(), index.size(), out), text);
        const auto scanned = scan(text);
        BOOST_REQUIRE_EQUAL(out.size(), scanned.size());
        for (std::size_t i = 0; i < out.size(); ++i) {
            BOOST_TEST(out[i].key == scanned[i].key);
            BOOST_TEST(out[i].text.data() == scanned[i].text.data());
            BOOST_TEST(out[i].text.size() == scanned[i].text.size());
        }
    }
}

// What the SDK cannot use, it refuses (and the adapter scans the input instead).
BOOST_AUTO_TEST_CASE(refuses_an_index_it_cannot_use) {
    const std::string text = R"( {"a":1,"bb":[2],"c":"x"} )";
    const auto good = indexOf(text);
    BOOST_REQUIRE(accepts(text, good));
    BOOST_TEST(!accepts(text, {}));
    auto with = [&](std::size_t i, trn_member m) {
        auto index = good;
        index[i] = m;
        return index;
    };
    const std::string other = R"({"a":1})";
    BOOST_TEST(!accepts(text, with(0, {toAbi(std::string_view(other).substr(2, 1)), good[0].value})));  // another text's
    BOOST_TEST(!accepts(text, with(1, {good[1].key, at(text, 13, 30)})));       // past the end
    BOOST_TEST(!accepts(text, with(2, {good[2].key, at(text, 21, 4)})));        // over the closing brace
    BOOST_TEST(!accepts(text, with(1, {good[1].key, at(text, 13, 0)})));        // empty value
    BOOST_TEST(!accepts(text, with(1, {at(text, 8, 2), good[1].value})));       // not between quotes
    BOOST_TEST(!accepts(text, with(1, {good[1].key, at(text, 6, 1)})));         // a value before its name
    BOOST_TEST(!accepts(text, {good[1], good[0], good[2]}));                    // out of order
    BOOST_TEST(!accepts(text, {good[0], good[0]}));                             // overlapping, and twice
    BOOST_TEST(!accepts(text, with(0, {trn_str{nullptr, 1}, good[0].value})));  // no name
    const std::string escaped = R"({"a"b":1})";
    BOOST_TEST(!accepts(escaped, {{at(escaped, 2, 4), at(escaped, 8, 1)}}));   // an escaped name
    const std::string twice = R"({"a":1,"a":2})";
    BOOST_TEST(!accepts(twice, {{at(twice, 2, 1), at(twice, 5, 1)}, {at(twice, 8, 1), at(twice, 11, 1)}}));
    const std::string array = R"(["a",1])";
    BOOST_TEST(!accepts(array, {{at(array, 2, 1), at(array, 5, 1)}}));  // not an object
}

BOOST_AUTO_TEST_SUITE_END()

namespace {

// Reads only the TrainJob's name, and records what it read.
struct NameReader : Plugin, CustomValidation {
    NameReader(const json::object&, Context&) {}
    static PluginMeta meta() { return {"namereader", "0.1", "reads the name", 0, true, {}, {}}; }
    static inline std::vector<std::string> names;
    void validate(const Info& info, Context&) override { names.emplace_back(info.name()); }
};
using NameAdapter = detail::Adapter<NameReader>;

struct Instance {
    testing::Host host;
    trn_instance* self = nullptr;
    Instance() {
        trn_host_info info{sizeof(trn_host_info), TRN_ABI_ENCODE(1, 0), TRN_ABI_VERSION, toAbi("test"), host.api()};
        BOOST_REQUIRE(NameAdapter::entry(&info));
        self = NameAdapter::create(host.call(), toAbi("{}"));
        BOOST_REQUIRE(self);
    }
    ~Instance() { NameAdapter::destroy(self); }
    trn_status validate(const std::string& input) { return NameAdapter::validate(self, host.call(), toAbi(input)); }
    std::string messages() const {
        std::string s;
        for (auto const& d : host.diagnostics) s += d.message + "\n";
        return s;
    }
};

// An Instance whose host offers an index of each input (trn_host_api.input_members): the
// `offered` members, whatever the input.
struct IndexingInstance {
    testing::Host host;
    trn_host_api api{};
    trn_instance* self = nullptr;
    static inline std::vector<trn_member> offered;
    static std::size_t inputMembers(trn_call*, const trn_member** out) {
        *out = offered.data();
        return offered.size();
    }
    IndexingInstance() {
        api = *host.api();
        api.input_members = &inputMembers;
        trn_host_info info{sizeof(trn_host_info), TRN_ABI_ENCODE(1, 0), TRN_ABI_VERSION, toAbi("test"), &api};
        BOOST_REQUIRE(NameAdapter::entry(&info));
        self = NameAdapter::create(host.call(), toAbi("{}"));
        BOOST_REQUIRE(self);
    }
    ~IndexingInstance() { NameAdapter::destroy(self); }
    trn_status validate(const std::string& input) { return NameAdapter::validate(self, host.call(), toAbi(input)); }
};

// The TrainJob's readers of `lazy` answer as those of `whole`.
void sameTrainJobAnswers(const Info& lazy, const Info& whole) {
    BOOST_TEST(lazy.name() == whole.name());
    BOOST_TEST(lazy.ns() == whole.ns());
    BOOST_TEST(lazy.uid() == whole.uid());
    BOOST_TEST(lazy.spec() == whole.spec());
    BOOST_TEST((lazy.trainer() == nullptr) == (whole.trainer() == nullptr));
}

std::string infoText(std::string_view name, std::string_view podSets = "[]") {
    return std::string(R"({"infoVersion":1,"trainJob":{"metadata":{"name":")") + std::string(name) +
           R"(","namespace":"ns"}},"podSets":)" + std::string(podSets) + "}";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(info)

BOOST_AUTO_TEST_CASE(parses_only_the_members_it_is_asked_for) {
    // `podSets` is not JSON (a bare word), but nothing reads it.
    const std::string text = R"({"trainJob":{"metadata":{"name":"j"}},"podSets":[nonsense]})";
    MemberMemo memo;
    Info info = lazyInfo(text, &memo);
    BOOST_TEST(info.name() == "j");
    BOOST_TEST(info.malformedMember().empty());
    BOOST_TEST(info.member("absent") == nullptr);
    BOOST_TEST(info.podSets().empty());  // read now: malformed, so absent, and reported
    BOOST_TEST(info.malformedMember() == "podSets");
}

BOOST_AUTO_TEST_CASE(a_whole_document_info_answers_the_same) {
    const std::string text = infoText("j", R"([{"name":"node","ancestor":"trainer"}])");
    MemberMemo memo;
    Info lazy = lazyInfo(text, &memo);
    Info whole(json::parse(text).as_object());
    sameTrainJobAnswers(lazy, whole);
    BOOST_TEST(lazy.podSets() == whole.podSets());
    BOOST_TEST(*lazy.member("trainJob") == *whole.member("trainJob"));
    BOOST_TEST(lazy.objectMember("infoVersion") == nullptr);
    BOOST_TEST(whole.objectMember("infoVersion") == nullptr);
    BOOST_TEST(lazy.doc() == whole.doc());
}

// spec(), name(), ns() and uid() parse only the TrainJob's member they read: what else the
// TrainJob holds (managedFields, a status) is not parsed for them, and a malformed member is
// reported, as the TrainJob, only when one of them reads it.
BOOST_AUTO_TEST_CASE(the_trainjob_is_read_member_by_member) {
    MemberMemo memo;
    const std::string text =
        R"({"trainJob":{"metadata":{"name":"j","namespace":"n","managedFields":[nonsense]},"status":[bad],"spec":{"a":1}}})";
    Info info = lazyInfo(text, &memo);
    BOOST_TEST(json::value(info.spec()) == json::parse(R"({"a":1})"));
    BOOST_TEST(info.malformedMember().empty());
    BOOST_TEST(info.name().empty());  // metadata is not JSON: absent, and now reported
    BOOST_TEST(info.malformedMember() == "trainJob");

    Info good = lazyInfo(R"({"trainJob":{"metadata":{"name":"j","uid":"u"},"status":[bad],"spec":{"a":1}}})", &memo);
    BOOST_TEST(good.name() == "j");
    BOOST_TEST(good.uid() == "u");
    BOOST_TEST(good.spec().contains("a"));
    BOOST_TEST(good.malformedMember().empty());
}

// Read member by member or whole, the answers are the same, whatever the TrainJob's text: one
// the scanner refuses (an escaped key, a key given twice, not an object) is read whole.
BOOST_AUTO_TEST_CASE(the_trainjob_read_by_member_answers_as_read_whole) {
    const char* trainJobs[] = {
        R"({"metadata":{"name":"j","namespace":"n","uid":"u"},"spec":{"trainer":{"numNodes":2}}})",
        R"({"spec":{"x":[1,{"y":"}"}]},"metadata":{"name":"after"}})",
        R"({"metadata":{"name":"esc","name":"j2"},"spec":{"k":1}})",
        R"({"metadata":{"name":"one"},"metadata":{"name":"two"},"spec":{}})",
        R"({"metadata":"not an object","spec":[1]})",
        R"([1,2])",
        R"({})",
    };
    for (const char* tj : trainJobs) {
        BOOST_TEST_CONTEXT(tj) {
            const std::string text = std::string(R"({"infoVersion":1,"trainJob":)") + tj + "}";
            MemberMemo memo;
            Info lazy = lazyInfo(text, &memo);
            sameTrainJobAnswers(lazy, Info(json::parse(text).as_object()));
            BOOST_TEST(lazy.malformedMember().empty());
            // Read whole first: the member-wise readers answer from that tree.
            Info first = lazyInfo(text, &memo);
            const json::object& all = first.trainJob();
            if (const json::object* spec = getObject(all, "spec")) BOOST_TEST(&first.spec() == spec);
            BOOST_TEST(first.spec() == lazy.spec());
        }
    }
}

// Through the adapter, calls that repeat a member's text and calls that change it each see
// their own input (the memo never answers for another text).
BOOST_AUTO_TEST_CASE(each_call_reads_its_own_input) {
    Instance plugin;
    NameReader::names.clear();
    for (const char* name : {"a", "a", "b", "a", "b", "b"})
        BOOST_TEST(plugin.validate(infoText(name)) == TRN_OK, plugin.messages());
    BOOST_TEST(NameReader::names == (std::vector<std::string>{"a", "a", "b", "a", "b", "b"}));
}

BOOST_AUTO_TEST_CASE(a_malformed_member_the_hook_reads_fails_the_hook) {
    Instance plugin;
    const trn_status st = plugin.validate(R"({"infoVersion":1,"trainJob":{"metadata":{"name":tru}}})");
    BOOST_TEST(st == TRN_ERROR);
    BOOST_TEST(plugin.messages().find("plugin namereader: input member \"trainJob\" is not valid JSON") !=
                   std::string::npos,
               plugin.messages());
}

// An index the host offers is what the adapter reads (a member it leaves out is absent to the
// hook); one the SDK refuses is set aside, and the input scanned.
BOOST_AUTO_TEST_CASE(the_adapter_reads_the_members_where_the_host_says_they_lie) {
    IndexingInstance plugin;
    NameReader::names.clear();
    const std::string text = infoText("indexed");
    IndexingInstance::offered = indexOf(text);
    BOOST_TEST(plugin.validate(text) == TRN_OK);
    const auto whole = IndexingInstance::offered;
    IndexingInstance::offered = {whole[0], whole[2]};  // infoVersion and podSets: no trainJob
    BOOST_TEST(plugin.validate(text) == TRN_OK);
    IndexingInstance::offered = {whole[1], whole[0]};  // out of order: refused, so scanned
    BOOST_TEST(plugin.validate(text) == TRN_OK);
    IndexingInstance::offered = {};                     // none offered: scanned
    BOOST_TEST(plugin.validate(text) == TRN_OK);
    BOOST_TEST(NameReader::names == (std::vector<std::string>{"indexed", "", "indexed", "indexed"}));
}

// What the scanner refuses is parsed whole, as before: an escaped key still reads, and text that
// is not one object is refused naming the plugin.
BOOST_AUTO_TEST_CASE(text_the_scanner_refuses_is_parsed_whole) {
    Instance plugin;
    NameReader::names.clear();
    BOOST_TEST(plugin.validate(R"({"tr\u0061inJob":{"metadata":{"name":"esc"}}})") == TRN_OK, plugin.messages());
    BOOST_TEST(NameReader::names == std::vector<std::string>{"esc"});
    BOOST_TEST(plugin.validate("[1,2]") == TRN_ERROR);
    BOOST_TEST(plugin.messages().find("plugin namereader: input is not a JSON object") != std::string::npos,
               plugin.messages());
}

BOOST_AUTO_TEST_SUITE_END()
