# The metrics exporter (daemon/metrics): listen-address parsing, the series a
# scrape over real HTTP returns, promtool's check of that scrape, bind errors.
tier_unit_test(metrics_test unit/metrics_test.cpp)
target_link_libraries(metrics_test PRIVATE tierd_metrics)
