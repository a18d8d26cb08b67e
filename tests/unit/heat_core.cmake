# Heat core: HeatMap and the cross-NUMA matrix. Included from tests/CMakeLists.txt.
tier_unit_test(heatmap_test unit/heatmap_test.cpp)
