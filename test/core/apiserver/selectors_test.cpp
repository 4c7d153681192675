// labelSelector and fieldSelector: grammar, the API server's error texts, matching.
#include <boost/test/unit_test.hpp>

#include "core/apiserver/selectors.hpp"

#include <string>

using namespace trainer::core::apiserver;

namespace {

const std::string kNameRegex =
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character "
    "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const std::string kValueRegex =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
    "an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

json::object parse(const char* text) { return json::parse(text).as_object(); }

json::object pod(const char* name, const char* extra = "{}") {
    auto o = parse(extra);
    o["apiVersion"] = "v1";
    o["kind"] = "Pod";
    o["metadata"] = json::object{{"name", name}, {"namespace", "default"}};
    return o;
}

}  // namespace

BOOST_AUTO_TEST_CASE(label_selector_grammar) {
    struct Case {
        const char* text;
        const char* canonical;
    };
    const Case cases[] = {
        {"", ""},
        {"   ", ""},
        {"a=b", "a=b"},
        {"a==b", "a==b"},
        {"a!=b", "a!=b"},
        {" a = b ", "a=b"},
        {"a=", "a="},
        {"a in (y,x)", "a in (x,y)"},
        {"a notin (x)", "a notin (x)"},
        {"a in ()", "a in ()"},
        {"a in (x,,y)", "a in (,x,y)"},
        {"x in (in,notin)", "x in (in,notin)"},
        {"in=notin", "in=notin"},
        {"a", "a"},
        {"!a", "!a"},
        {"a>1,b<2", "a>1,b<2"},
        {"z=1,a,!m", "a,!m,z=1"},
        {"example.com/app=web", "example.com/app=web"},
        {"app.kubernetes.io/name in (trainer)", "app.kubernetes.io/name in (trainer)"},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.text) {
            std::string error;
            auto s = parseLabelSelector(c.text, error);
            BOOST_TEST_REQUIRE(s.has_value(), error);
            BOOST_TEST(s->toString() == c.canonical);
            BOOST_TEST(s->empty() == (std::string(c.canonical).empty()));
        }
    }
}

BOOST_AUTO_TEST_CASE(label_selector_errors_read_like_the_api_server) {
    const std::string longKey(64, 'k');
    struct Case {
        std::string text;
        std::string error;
    };
    const Case cases[] = {
        {"a=b c", "found 'c', expected: ',' or 'end of string'"},
        {"x=a)", "found ')', expected: ',' or 'end of string'"},
        {"a,", "found '', expected: identifier after ','"},
        {"a,=", "found '=', expected: identifier after ','"},
        {",a", "found ',', expected: !, identifier, or 'end of string'"},
        {"(", "found '(', expected: !, identifier, or 'end of string'"},
        {"a b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"},
        {"a in x", "unable to parse requirement: found 'x' expected: '('"},
        {"a in (x", "unable to parse requirement: found '', expected: ',' or ')'"},
        {"a in (x y)", "unable to parse requirement: found 'y', expected: ',' or ')'"},
        {"a in (=)", "unable to parse requirement: found '=', expected: ',', ')' or identifier"},
        {"a in (x,=)", "unable to parse requirement: found '=', expected: ',', or identifier"},
        {"a=(b)", "unable to parse requirement: found '(', expected: identifier"},
        {"!", "unable to parse requirement: found '', expected: identifier"},
        {"!=a", "found '!=', expected: !, identifier, or 'end of string'"},
        {"!!a", "unable to parse requirement: found '!', expected: identifier"},
        {"-a=b", "unable to parse requirement: <nil>: Invalid value: \"-a\": " + kNameRegex},
        {"a=-b", "unable to parse requirement: values[0][a]: Invalid value: \"-b\": " + kValueRegex},
        {"a in (ok,-b)", "unable to parse requirement: values[0][a]: Invalid value: \"-b\": " + kValueRegex},
        {"a=" + std::string(64, 'v'), "unable to parse requirement: values[0][a]: Invalid value: \"" + std::string(64, 'v') +
                                          "\": must be no more than 63 characters"},
        {"a>x", "unable to parse requirement: values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the value must be an integer"},
        {"a<-x", "unable to parse requirement: [values[0]: Invalid value: \"-x\": for 'Gt', 'Lt' operators, the value must be an "
                 "integer, values[0][a]: Invalid value: \"-x\": " + kValueRegex + "]"},
        {longKey, "unable to parse requirement: <nil>: Invalid value: \"" + longKey + "\": name part must be no more than 63 characters"},
        {"/a", "unable to parse requirement: <nil>: Invalid value: \"/a\": prefix part must be non-empty"},
        {"a/", "unable to parse requirement: <nil>: Invalid value: \"a/\": name part must be non-empty; " + kNameRegex},
        {"Bad/a", "unable to parse requirement: <nil>: Invalid value: \"Bad/a\": prefix part a lowercase RFC 1123 subdomain must "
                  "consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character "
                  "(e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"},
        {"a/b/c", "unable to parse requirement: <nil>: Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric "
                  "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
                  "'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an "
                  "optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"},
        {"a\"b", "unable to parse requirement: <nil>: Invalid value: \"a\\\"b\": " + kNameRegex},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.text) {
            std::string error;
            auto s = parseLabelSelector(c.text, error);
            BOOST_TEST(!s.has_value());
            BOOST_TEST(error == c.error);
        }
    }
}

BOOST_AUTO_TEST_CASE(label_selector_matching) {
    auto labels = parse(R"({"app":"web","tier":"db","n":"5","empty":""})");
    struct Case {
        const char* selector;
        bool matches;         // on `labels`
        bool matchesNoLabels;  // on {}
    };
    const Case cases[] = {
        {"", true, true},
        {"app=web", true, false},
        {"app==api", false, false},
        {"app!=api", true, true},
        {"app!=web", false, true},
        {"missing=x", false, false},
        {"empty=", true, false},
        {"missing=", false, false},
        {"app in (api,web)", true, false},
        {"app in (api)", false, false},
        {"app notin (web)", false, true},
        {"missing notin (x)", true, true},
        {"app", true, false},
        {"!app", false, true},
        {"!missing", true, true},
        {"n>3", true, false},
        {"n>5", false, false},
        {"n<6", true, false},
        {"app>3", false, false},
        {"app=web,tier=db", true, false},
        {"app=web,tier=x", false, false},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.selector) {
            std::string error;
            auto s = parseLabelSelector(c.selector, error);
            BOOST_TEST_REQUIRE(s.has_value(), error);
            BOOST_TEST(s->matches(labels) == c.matches);
            BOOST_TEST(s->matches(json::object{}) == c.matchesNoLabels);
        }
    }
}

BOOST_AUTO_TEST_CASE(label_selector_objects_as_label_selector_as_selector) {
    struct Case {
        const char* selector;
        const char* canonical;  // nullptr: an error
        std::string error;
    };
    const Case cases[] = {
        {R"({"matchLabels":{"b":"2","a":"1"}})", "a=1,b=2", ""},
        {R"({"matchLabels":{"a":"1"},"matchExpressions":[{"key":"c","operator":"In","values":["y","x"]},
            {"key":"d","operator":"DoesNotExist"}]})", "a=1,c in (x,y),!d", ""},
        {R"({})", "", ""},
        {R"({"matchExpressions":[{"key":"c","operator":"Bad"}]})", nullptr, "\"Bad\" is not a valid label selector operator"},
        {R"({"matchExpressions":[{"key":"c","operator":"In"}]})", nullptr,
         "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty"},
        {R"({"matchExpressions":[{"key":"c","operator":"Exists","values":["a"]}]})", nullptr,
         "values: Invalid value: []string{\"a\"}: values set must be empty for exists and does not exist"},
        {R"({"matchLabels":{"-a":"1"}})", nullptr, "key: Invalid value: \"-a\": " + kNameRegex},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.selector) {
            std::string error;
            auto s = labelSelectorFromObject(parse(c.selector), error);
            BOOST_TEST(s.has_value() == (c.canonical != nullptr));
            if (s) BOOST_TEST(s->toString() == c.canonical);
            else BOOST_TEST(error == c.error);
        }
    }
}

BOOST_AUTO_TEST_CASE(field_selector_errors_read_like_the_api_server) {
    struct Case {
        const char* text;
        const char* kind;
        bool builtin;
        FieldLabelScope scope;
        const char* error;
    };
    const Case cases[] = {
        {"spec.x=1", "ConfigMap", true, {}, "\"spec.x\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\""},
        {"spec.x=1", "Lease", true, {.group = "coordination.k8s.io"},
         "\"spec.x\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\""},
        {"spec.x=1", "Pod", true, {}, "field label not supported: spec.x"},
        {"involvedObject.x=1", "Event", true, {}, "field label not supported: involvedObject.x"},
        {"involvedObject.name=x", "Event", true, {.group = "events.k8s.io"}, "field label not supported: involvedObject.name"},
        {"metadata.namespace=a", "Namespace", true, {}, "field label not supported: metadata.namespace"},
        {"status.succeeded=1", "Job", true, {.group = "batch"}, "field label \"status.succeeded\" not supported for batchv1.Job"},
        {"spec.x=1", "TrainJob", false, {}, "field label not supported: spec.x"},
        {"metadata.namespace=a", "ClusterTrainingRuntime", false, {.namespaced = false},
         "field label not supported: metadata.namespace"},
        {"z=1,spec.bad=2", "Pod", true, {}, "field label not supported: spec.bad"},
        {"=x", "Pod", true, {}, "field label not supported: "},
        {"a", "Pod", true, {}, "invalid selector: 'a'; can't understand 'a'"},
        {"metadata.name=a,b", "Pod", true, {}, "invalid selector: 'metadata.name=a,b'; can't understand 'b'"},
        {"a=b=c", "Pod", true, {}, "invalid field selector: unescaped character in value: 61"},
        {"a=b\\x", "Pod", true, {}, "invalid field selector: invalid escape sequence: \\x"},
        {"a=b\\", "Pod", true, {}, "invalid field selector: invalid escape sequence: \\"},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.text << " on " << c.kind) {
            std::string error;
            auto s = parseFieldSelector(c.text, c.kind, c.builtin, error, c.scope);
            BOOST_TEST(!s.has_value());
            BOOST_TEST(error == c.error);
        }
    }
}

BOOST_AUTO_TEST_CASE(field_selector_matching) {
    auto running = pod("web-1", R"({"spec":{"nodeName":"n1","restartPolicy":"Always"},
        "status":{"phase":"Running","podIPs":[{"ip":"10.0.0.7"}]}})");
    auto event = parse(R"({"apiVersion":"v1","kind":"Event","metadata":{"name":"e.1","namespace":"default"},
        "involvedObject":{"kind":"TrainJob","name":"job"},"reason":"Created","type":"Warning",
        "source":{"component":"trainer-operator"}})");
    auto eventV1 = parse(R"({"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"e.2","namespace":"default"},
        "regarding":{"kind":"Pod","name":"p"},"reason":"Pulled","type":"Normal","reportingController":"kubelet"})");
    auto secret = parse(R"({"apiVersion":"v1","kind":"Secret","type":"Opaque","metadata":{"name":"a,b","namespace":"x"}})");
    auto job = parse(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j","namespace":"default"},"status":{"succeeded":1}})");
    auto widget = parse(R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},
        "spec":{"color":"red","size":3,"on":true}})");
    auto priority = parse(R"({"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"high"}})");
    struct Case {
        const char* text;
        const char* kind;
        bool builtin;
        FieldLabelScope scope;
        const json::object* object;
        bool matches;
    };
    const Case cases[] = {
        {"", "Pod", true, {}, &running, true},
        {"=", "Pod", true, {}, &running, true},
        {"metadata.name=web-1", "Pod", true, {}, &running, true},
        {"metadata.name==web-2", "Pod", true, {}, &running, false},
        {"metadata.name!=web-2,metadata.namespace=default", "Pod", true, {}, &running, true},
        {"status.phase=Running,spec.nodeName=n1", "Pod", true, {}, &running, true},
        {"spec.host=n1", "Pod", true, {}, &running, true},
        {"spec.hostNetwork=false", "Pod", true, {}, &running, true},
        {"status.podIP=10.0.0.7", "Pod", true, {}, &running, true},
        {"status.nominatedNodeName=", "Pod", true, {}, &running, true},
        {"spec.schedulerName=x", "Pod", true, {}, &running, false},
        {"involvedObject.kind=TrainJob,involvedObject.name=job,type=Warning", "Event", true, {}, &event, true},
        {"source=trainer-operator,reason!=Created", "Event", true, {}, &event, false},
        {"regarding.name=p,reportingController=kubelet,source=kubelet", "Event", true, {.group = "events.k8s.io"}, &eventV1, true},
        {"type=Opaque,metadata.name=a\\,b", "Secret", true, {}, &secret, true},
        {"type=kubernetes.io/tls", "Secret", true, {}, &secret, false},
        {"status.successful=1", "Job", true, {.group = "batch"}, &job, true},
        {"metadata.namespace=", "PriorityClass", true, {}, &priority, true},
        {"metadata.namespace=default", "PriorityClass", true, {}, &priority, false},
        {"spec.color=red,spec.size=3,spec.on=true", "Widget", false, {.selectableFields = {"spec.color", "spec.size", "spec.on"}},
         &widget, true},
        {"spec.color!=red", "Widget", false, {.selectableFields = {"spec.color"}}, &widget, false},
        {"metadata.name=w", "Widget", false, {.namespaced = false}, &widget, true},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.text << " on " << c.kind) {
            std::string error;
            auto s = parseFieldSelector(c.text, c.kind, c.builtin, error, c.scope);
            BOOST_TEST_REQUIRE(s.has_value(), error);
            BOOST_TEST(s->matches(*c.object) == c.matches);
        }
    }
}

BOOST_AUTO_TEST_CASE(field_selector_exact_match_and_crd_selectable_fields) {
    std::string error;
    auto s = parseFieldSelector("metadata.namespace!=a,metadata.name==x", "ConfigMap", true, error);
    BOOST_TEST_REQUIRE(s.has_value(), error);
    BOOST_TEST(s->requiresExactMatch("metadata.name").value_or("?") == "x");
    BOOST_TEST(!s->requiresExactMatch("metadata.namespace").has_value());
    auto host = parseFieldSelector("spec.host=n1", "Pod", true, error);
    BOOST_TEST_REQUIRE(host.has_value(), error);
    BOOST_TEST(host->requiresExactMatch("spec.nodeName").value_or("?") == "n1");

    auto crd = parse(R"({"spec":{"versions":[{"name":"v1","selectableFields":[{"jsonPath":".spec.color"}]},
        {"name":"v2","selectableFields":[{"jsonPath":".spec.size"},{"jsonPath":".status.phase"}]}]}})");
    BOOST_TEST(crdSelectableFields(crd, "v2") == (std::vector<std::string>{"spec.size", "status.phase"}),
               boost::test_tools::per_element());
    BOOST_TEST(crdSelectableFields(crd, "v1") == std::vector<std::string>{"spec.color"}, boost::test_tools::per_element());
    BOOST_TEST(crdSelectableFields(crd, "v3").empty());
}
