#define BOOST_TEST_MODULE core_runtime
#include <boost/test/unit_test.hpp>
