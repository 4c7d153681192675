#include <boost/test/unit_test.hpp>

#include "core/executor/env_resolver.hpp"
#include "podspec_fixture.hpp"

using namespace trainer::core::executor;
using namespace podspec_test;

BOOST_AUTO_TEST_SUITE(command)

BOOST_AUTO_TEST_CASE(command_and_args_expand_against_the_environment) {
    std::vector<EnvVar> env{{"RANK", "3"}, {"EMPTY", ""}};
    auto r = resolveCommand(obj(R"J({"name":"c","command":["python","-c","print('$(RANK)')"],
        "args":["--rank=$(RANK)","$(EMPTY)x","$$(RANK)","$(UNSET)"]})J"),
                            env);
    BOOST_TEST(!r.problem);
    BOOST_TEST(r.argv == (std::vector<std::string>{"python", "-c", "print('3')", "--rank=3", "x", "$(RANK)", "$(UNSET)"}),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_container_without_command_cannot_use_an_image_entrypoint) {
    for (auto spec : {R"({"name":"c","image":"pytorch/pytorch:2.3"})",
                      R"({"name":"c","image":"pytorch/pytorch:2.3","command":[],"args":["train.py"]})"}) {
        auto r = resolveCommand(obj(spec), {});
        BOOST_REQUIRE(r.problem);
        BOOST_TEST(r.problem->reason == "StartError");
        BOOST_TEST(r.problem->message ==
                   "container \"c\" has no command: the local executor runs the host's programs and cannot use the "
                   "image's entrypoint (image pytorch/pytorch:2.3)");
        BOOST_TEST(r.argv.empty());
    }
    auto noImage = resolveCommand(obj(R"({"name":"c"})"), {});
    BOOST_REQUIRE(noImage.problem);
    BOOST_TEST(noImage.problem->message.ends_with("(image not set)"));
}

BOOST_AUTO_TEST_CASE(malformed_command_names_the_field) {
    auto r = resolveCommand(obj(R"({"name":"c","command":["sh"],"args":["-c",5]})"), {}, "spec.containers[1]");
    BOOST_REQUIRE(r.problem);
    BOOST_TEST(r.problem->reason == "CreateContainerConfigError");
    BOOST_TEST(r.problem->message == "spec.containers[1].args[1]: Invalid value: 5: must be a string");
    auto notArray = resolveCommand(obj(R"({"name":"c","command":"sh -c true"})"), {});
    BOOST_REQUIRE(notArray.problem);
    BOOST_TEST(notArray.problem->message == "container \"c\".command: Invalid value: \"sh -c true\": must be an array");
}

BOOST_AUTO_TEST_SUITE_END()
