-- kernel_category: built-in rules on real kernel names, user rules, NULLs
SELECT 'cat_01', kernel_category('volta_sgemm_64x64_nt');
SELECT 'cat_02', kernel_category('void cutlass::Kernel2<cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_nn_align1>(Params)');
SELECT 'cat_03', kernel_category('sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64');
SELECT 'cat_04', kernel_category('Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT320x224x64');
SELECT 'cat_05', kernel_category('nvjet_tst_128x256_64x4_2x1_v_bz_coopB_NTN');
SELECT 'cat_06', kernel_category('void implicit_convolve_sgemm<float, float, 1024, 6, 7, 3, 3, 5, 1, false, true, true>(int)');
SELECT 'cat_07', kernel_category('cudnn_volta_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1');
SELECT 'cat_08', kernel_category('sm80_xmma_wgrad_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc');
SELECT 'cat_09', kernel_category('void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64>>(Params)');
SELECT 'cat_10', kernel_category('fmha_cutlassF_f16_aligned_64x64_rf_sm80');
SELECT 'cat_11', kernel_category('ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)');
SELECT 'cat_12', kernel_category('ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)');
SELECT 'cat_13', kernel_category('void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 512, true, 1>(float)');
SELECT 'cat_14', kernel_category('void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int)');
SELECT 'cat_15', kernel_category('void at::native::(anonymous namespace)::cunn_SoftMaxForward<8, float, float>(float*)');
SELECT 'cat_16', kernel_category('void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int)');
SELECT 'cat_17', kernel_category('void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>(int)');
SELECT 'cat_18', kernel_category('void at::native::reduce_kernel<128, 4, at::native::ReduceOp<float, at::native::func_wrapper_t<float>>>(Op)');
SELECT 'cat_19', kernel_category('void multi_tensor_apply_kernel<TensorListMetadata<4>, AdamFunctor<float>, float>(long)');
SELECT 'cat_20', kernel_category('void split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel<float>(int)');
SELECT 'cat_21', kernel_category('triton_poi_fused_addmm_gelu_view_15');
SELECT 'cat_22', kernel_category('void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&)>(int)');
SELECT 'cat_23', kernel_category('void at::native::(anonymous namespace)::max_pool_backward_nchw<float, float>(float const*)');
SELECT 'cat_24', kernel_category('void cub::DeviceRadixSortOnesweepKernel<cub::DeviceRadixSortPolicy<long, int, int>>(int)');
SELECT 'cat_25', kernel_category('void at::native::_scatter_gather_elementwise_kernel<128, 4>(int)');
SELECT 'cat_26', kernel_category('void fft2d_r2c_16x16<float>(float2*, float const*)');
SELECT 'cat_27', kernel_category('kDequantizeBlockwise<__nv_bfloat16, 512, 64, 8, 4>');
SELECT 'cat_28', kernel_category('_scatter2scatter_lora_dx');
SELECT 'cat_29', kernel_category('lora_qkv_fwd_kernel');
SELECT 'cat_30', kernel_category('_cce_lse_forward_kernel');
SELECT 'cat_31', kernel_category('causal_conv1d_fwd_kernel');
SELECT 'cat_32', kernel_category('void at::native::vectorized_elementwise_kernel<4, at::native::bfloat16_copy_kernel_cuda>(int)');
SELECT 'cat_33', kernel_category('void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float>(float*)');
SELECT 'cat_34', kernel_category('fused_moe_kernel');
SELECT 'cat_35', kernel_category('Memcpy HtoD (Pageable -> Device)');
SELECT 'cat_36', kernel_category('Memset (Device)');
SELECT 'cat_37', kernel_category('some_unheard_of_kernel');
SELECT 'cat_38', kernel_category('');
SELECT 'cat_39', kernel_category(NULL) IS NULL;
SELECT 'cat_40', kernel_category(42);
SELECT 'cat_41', kernel_category(x'47454d4d');
SELECT 'cat_42', kernel_category('VOLTA_SGEMM_CASE');
-- regressions: substrings that must not decide ({lambda} is not LAMB,
-- updateOutput_kernel is not index_put, prefill is not a fill)
SELECT 'cat_45', kernel_category('void at::native::reduce_kernel<512, 1, at::native::ReduceOp<c10::Half, at::native::MinOps<c10::Half>, unsigned int, c10::Half, 4>>(at::native::ReduceOp<c10::Half>)::{lambda(int)#1}');
SELECT 'cat_46', kernel_category('void cunn_ClassNLLCriterion_updateOutput_kernel<float, float>(float*)');
SELECT 'cat_47', kernel_category('chunked_prefill_paged_decode');
SELECT 'cat_48', kernel_category('cutlass_tensorop_s1688fprop_optimized_tf32_64x128_32x3_nhwc_align4');
SELECT 'cat_49', kernel_category('at::cuda::(anonymous namespace)::spin_kernel(long)');
-- MIOpen's helpers around its conv solvers are Convolution (issue 29: MI210
-- gpu_only_trace); PyTorch's transposes and casts stay Elementwise.
SELECT 'cat_50', kernel_category('batched_transpose_16x64_pack_1x4_ediv_1x2_half');
SELECT 'cat_51', kernel_category('SubTensorOpWithScalar1d');
SELECT 'cat_52', kernel_category('SubTensorOpWithCastTensor1d');
SELECT 'cat_53', kernel_category('void at::native::transpose_kernel<float>(float*)');
SELECT 'cat_43', kernel_category();
SELECT 'cat_44', kernel_category('a', 'b');
-- user rules apply first, in priority order; globs match the whole name
CREATE TEMP TABLE kernel_category_rule(priority, pattern, category);
INSERT INTO kernel_category_rule VALUES
  (2, 'sgemm', 'My GEMM'), (1, 'volta_*_nt', 'Volta NT'), (3, 'unheard', 'Found it');
SELECT 'rule_01', kernel_category('volta_sgemm_64x64_nt');
SELECT 'rule_02', kernel_category('volta_sgemm_64x64_nn');
SELECT 'rule_03', kernel_category('some_unheard_of_kernel');
SELECT 'rule_04', kernel_category('ncclKernel_AllReduce');
SELECT 'rule_05', kernel_category('xvolta_nt');
-- edits to the rule table apply to the next call
DELETE FROM kernel_category_rule WHERE priority = 1;
SELECT 'rule_06', kernel_category('volta_sgemm_64x64_nt');
DROP TABLE kernel_category_rule;
SELECT 'rule_07', kernel_category('volta_sgemm_64x64_nt');
CREATE TEMP TABLE kernel_category_rule(priority, pattern);
SELECT 'rule_08', kernel_category('volta_sgemm_64x64_nt');
-- rules defined by DDL alone (no row change): CREATE TABLE AS, views, DROP
DROP TABLE kernel_category_rule;
SELECT 'ddl_01', kernel_category('my_rope_kernel');
CREATE TEMP TABLE kernel_category_rule AS SELECT 1 AS priority, 'rope' AS pattern, 'RoPE' AS category;
SELECT 'ddl_02', kernel_category('my_rope_kernel');
DROP TABLE kernel_category_rule;
CREATE TEMP VIEW kernel_category_rule AS SELECT 1 AS priority, 'rope' AS pattern, 'RoPE view' AS category;
SELECT 'ddl_03', kernel_category('my_rope_kernel');
DROP VIEW kernel_category_rule;
SELECT 'ddl_04', kernel_category('my_rope_kernel');
