# Heat source selection and the collection loop behind `tierctl heat`
# (scripted sources behind the HeatSource seam, a scripted MemorySyscalls).
tier_unit_test(heat_collect_test unit/heat_collect_test.cpp)
