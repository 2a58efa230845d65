use crate::mle::{eq_table, evaluate_matrix, log2_padded};
use super::vectors::{eq_table_case, matrix_evaluation_case};

#[test]
fn log2_of_padded_sizes() {
    assert_eq!(log2_padded(1), 0);
    assert_eq!(log2_padded(2), 1);
    assert_eq!(log2_padded(3), 2);
    assert_eq!(log2_padded(5), 3);
    assert_eq!(log2_padded(8), 3);
    assert_eq!(log2_padded(0x100000), 20);
}

#[test]
fn eq_table_matches_python() {
    let (point, table) = eq_table_case();
    assert_eq!(eq_table(point), table);
    assert_eq!(eq_table(array![].span()).len(), 1);
}

#[test]
fn matrix_evaluation_matches_python() {
    let case = matrix_evaluation_case();
    let value = evaluate_matrix(case.values, case.cols, eq_table(case.r_row), eq_table(case.r_col));
    assert_eq!(value, case.value);
}
