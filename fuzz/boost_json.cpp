// Boost.JSON compiled from source for the fuzz build: the control protocol's
// parser is most of what fuzz_request exercises, and Debian's libboost_json
// is built with g++ and no instrumentation, so libFuzzer could not see its
// branches nor ASan its memory.
#include <boost/json/src.hpp>
