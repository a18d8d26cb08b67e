// Boost.JSON compiled into the front `tierctl` (front_main.cpp): the shared
// libboost_json would bring the shared libstdc++ back, whose load is most
// of what the front saves.
#include <boost/json/src.hpp>
