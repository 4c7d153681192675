#define BOOST_TEST_MODULE core_apiserver
#include <boost/test/unit_test.hpp>
